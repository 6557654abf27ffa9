import FuzzSupport
import StreamCore

/// Ingest URL parsing: arbitrary text never traps, and a parsed URL's `tcUrl` parses to an equal value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngestURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    guard let url = try? IngestURL(parsing: text) else { return 0 }
    let reparsed: IngestURL
    do {
        reparsed = try IngestURL(parsing: url.tcUrl)
    } catch {
        fuzzFail("tcUrl of a parsed URL does not parse: \(error)")
    }
    fuzzCheck(reparsed == url, "tcUrl parses to a different URL")
    return 0
}
