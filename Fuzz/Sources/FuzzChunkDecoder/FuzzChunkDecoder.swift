import FuzzSupport
import RTMP

/// The RTMP chunk decoder (RTMP §5.3): arbitrary bytes never trap, memory stays within the limits, and bytes
/// delivered in pieces decode exactly as when delivered whole.
///
/// Steering bytes: [0] bit 0 selects small limits (so the resource limits are reachable with short inputs);
/// [1] piece sizes; [2...3] a chunk size announced first with Set Chunk Size (0: none). The rest is the stream.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = input.takeByte() & 1 == 1
        ? ChunkDecoderLimits(maximumChunkSize: 4096, maximumMessageLength: 1024, maximumBufferedBytes: 2048,
                             maximumChunkStreamsInProgress: 3, maximumChunkStreams: 8)
        : ChunkDecoderLimits.default
    let pieceSeed = Int(input.takeByte())
    let announcedChunkSize = UInt32(input.takeUInt16())
    var stream: [UInt8] = []
    if announcedChunkSize != 0 {
        var encoder = ChunkEncoder()
        stream += encoder.encode(ProtocolControlMessage.setChunkSize(announcedChunkSize).message())
    }
    stream += input.rest

    let whole = decode([stream], limits: limits)
    let split = decode(pieces(of: stream, sizes: [pieceSeed % 7 + 1, pieceSeed / 7 + 1, 1]), limits: limits)
    fuzzCheck(whole.messages == split.messages, "messages differ when the bytes arrive in pieces")
    fuzzCheck(whole.failed == split.failed, "an error depends on how the bytes arrive")
    return 0
}

private func decode(_ pieces: [[UInt8]], limits: ChunkDecoderLimits) -> (messages: [RTMPMessage], failed: Bool) {
    var decoder = ChunkDecoder(limits: limits)
    var messages: [RTMPMessage] = []
    var appended = 0
    for piece in pieces {
        decoder.append(piece)
        appended += piece.count
        do {
            while let message = try decoder.next() {
                fuzzCheck(message.payload.count <= limits.maximumMessageLength,
                          "a \(message.payload.count)-byte message passed the \(limits.maximumMessageLength) limit")
                messages.append(message)
            }
        } catch {
            return (messages, true)
        }
        fuzzCheck(decoder.chunkSize >= 1 && decoder.chunkSize <= limits.maximumChunkSize,
                  "chunk size \(decoder.chunkSize) outside 1...\(limits.maximumChunkSize)")
        fuzzCheck(decoder.unconsumedByteCount <= appended, "more bytes unconsumed than appended")
    }
    return (messages, false)
}
