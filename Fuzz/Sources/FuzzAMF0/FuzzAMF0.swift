import AMF
import FuzzSupport

/// AMF0: decoding arbitrary bytes never traps, and what decodes re-encodes stably.
///
/// The round trip compares encoded bytes, not values (NaN != NaN). Encoding expands references (AMF0 §2.9), so
/// the re-encoded bytes may hold more complex values than the reference table allowed; everything else (depth,
/// total values, collection and string sizes) must still be within the default limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAMF0(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let values = try? AMF0.decodeAll(input.bytes) else { return 0 }
    let encoded = AMF0.encode(values)
    var relaxed = AMF0Limits.default
    relaxed.maxReferences = Int.max
    let decodedAgain: [AMF0Value]
    do {
        decodedAgain = try AMF0.decodeAll(encoded, limits: relaxed)
    } catch {
        fuzzFail("re-encoded AMF0 does not decode: \(error)")
    }
    fuzzCheck(AMF0.encode(decodedAgain) == encoded, "AMF0 re-encoding is not stable")
    return 0
}
