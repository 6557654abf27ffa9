import FLV
import FuzzSupport

/// FLV: the reader and the tag body parsers never trap on arbitrary bytes; the reader gives the same tags
/// whether the bytes arrive whole or in pieces and buffers no more than it was given; bodies that parse
/// re-encode to bytes that parse and encode to the same bytes again.
///
/// Steering bytes: [0] bit 0 expects a file header, bit 1 a small tag size limit; [1] piece sizes. The rest is
/// the stream; it is also handed to every body parser directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFLV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.takeByte()
    let pieceSeed = Int(input.takeByte())
    let stream = input.rest
    let expectsFileHeader = flags & 1 == 1
    let maximumTagBodySize = flags & 2 == 2 ? 256 : FLVTag.maximumBodySize

    let whole = read([stream], maximumTagBodySize: maximumTagBodySize, expectsFileHeader: expectsFileHeader)
    let split = read(pieces(of: stream, sizes: [pieceSeed % 11 + 1, pieceSeed + 1]),
                     maximumTagBodySize: maximumTagBodySize, expectsFileHeader: expectsFileHeader)
    fuzzCheck(whole.tags == split.tags, "tags differ when the bytes arrive in pieces")
    fuzzCheck(whole.failed == split.failed, "an error depends on how the bytes arrive")
    for tag in whole.tags {
        fuzzCheck(tag.body.count <= maximumTagBodySize, "a \(tag.body.count)-byte tag passed the size limit")
        parseBody(tag.body, as: tag.type)
    }
    for type in [FLVTagType.audio, .video, .scriptData] {
        parseBody(stream, as: type)
    }
    return 0
}

private func read(_ pieces: [[UInt8]], maximumTagBodySize: Int,
                  expectsFileHeader: Bool) -> (tags: [FLVTag], failed: Bool) {
    var reader = FLVReader(maximumTagBodySize: maximumTagBodySize, expectsFileHeader: expectsFileHeader)
    var tags: [FLVTag] = []
    for piece in pieces {
        reader.append(piece)
        do {
            while let tag = try reader.next() {
                tags.append(tag)
            }
        } catch {
            return (tags, true)
        }
        // Pending is at most a file header with its padding, or a tag's 11-byte header, its body and the 4-byte
        // PreviousTagSize before it.
        let bound = max(Int(FLVFileHeader.maximumDataOffset) + 4, 4 + 11 + maximumTagBodySize)
        fuzzCheck(reader.bufferedByteCount <= bound,
                  "\(reader.bufferedByteCount) bytes buffered")
    }
    return (tags, false)
}

private func parseBody(_ body: [UInt8], as type: FLVTagType) {
    switch type {
    case .video:
        if let video = try? FLVVideoTagBody(parsing: body) {
            let encoded = video.encode()
            let again = try? FLVVideoTagBody(parsing: encoded)
            fuzzCheck(again?.encode() == encoded, "video tag body re-encoding is not stable")
        }
        // The parser usually sees the body after the 5-byte video header; try both.
        parseDecoderConfiguration(body)
        parseDecoderConfiguration(Array(body.dropFirst(FLVVideoTagBody.headerSize)))
    case .audio:
        if let audio = try? FLVAudioTagBody(parsing: body) {
            let encoded = audio.encode()
            let again = try? FLVAudioTagBody(parsing: encoded)
            fuzzCheck(again?.encode() == encoded, "audio tag body re-encoding is not stable")
        }
        parseAudioConfiguration(body)
        parseAudioConfiguration(Array(body.dropFirst(2)))
    case .scriptData:
        if let metadata = try? FLVMetadata(parsing: body) {
            let encoded = metadata.encode()
            let again = try? FLVMetadata(parsing: encoded)
            fuzzCheck(again?.encode() == encoded, "metadata re-encoding is not stable")
        }
    }
}

private func parseDecoderConfiguration(_ bytes: [UInt8]) {
    guard let record = try? AVCDecoderConfigurationRecord(parsing: bytes) else { return }
    let encoded = record.encode()
    let again = try? AVCDecoderConfigurationRecord(parsing: encoded)
    fuzzCheck(again?.encode() == encoded, "avcC re-encoding is not stable")
}

private func parseAudioConfiguration(_ bytes: [UInt8]) {
    guard let configuration = try? AudioSpecificConfig(parsing: bytes) else { return }
    let encoded = configuration.encode()
    let again = try? AudioSpecificConfig(parsing: encoded)
    fuzzCheck(again?.encode() == encoded, "AudioSpecificConfig re-encoding is not stable")
}
