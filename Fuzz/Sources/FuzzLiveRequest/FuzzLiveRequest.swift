import FuzzSupport
import LiveProtocol

/// The live-show protocol's request decoder (`LiveCodec.decodeRequest`, what the server runs on every WebSocket text
/// message): arbitrary bytes never trap, and a request that decodes re-encodes (the client's encoder) to bytes that
/// decode to the same request, whose encoding is stable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLiveRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let request = try? LiveCodec.decodeRequest(input.bytes) else { return 0 }
    let encoded = LiveCodec.encode(request)
    do {
        let again = try LiveCodec.decodeRequest(encoded)
        fuzzCheck(again == request, "a re-encoded request decodes to another request")
        fuzzCheck(LiveCodec.encode(again) == encoded, "request encoding is not stable")
    } catch {
        fuzzFail("a re-encoded request does not decode: \(error.error.reason)")
    }
    return 0
}
