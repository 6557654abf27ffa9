import FuzzSupport
import LiveShows

/// `stream serve --shows FILE`: arbitrary bytes never trap the declarations parser; what it refuses it refuses
/// with a reason.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShowsFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    do {
        _ = try ShowsFile.catalog(from: input.bytes)
    } catch {
        fuzzCheck(!error.description.isEmpty, "a refused shows file has no reason")
    }
    return 0
}
