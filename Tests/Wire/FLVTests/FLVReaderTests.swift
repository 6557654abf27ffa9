import Testing
@testable import FLV

@Suite struct FLVReaderTests {
    @Test(arguments: FeedMode.allCases)
    func readsEveryTag(mode: FeedMode) throws {
        var reader = FLVReader()
        let tags = try reader.readAll(FLVVectors.file, mode)
        #expect(tags.map(\.values) == FLVVectors.tags)
        #expect(reader.header == FLVFileHeader(hasAudio: true, hasVideo: true))
        #expect(reader.bufferedByteCount == 0)
    }

    /// Each tag vector merged with the next one in a single append yields both tags.
    @Test func readsTagsMergedWithTheNextOne() throws {
        var reader = FLVReader()
        reader.append(FLVVectors.fileHeader)
        #expect(try reader.next() == nil)
        reader.append(FLVVectors.scriptTag + FLVVectors.videoTag)
        #expect(try reader.next()?.values == FLVVectors.tags[0])
        #expect(try reader.next()?.values == FLVVectors.tags[1])
        #expect(try reader.next() == nil)
        reader.append(FLVVectors.audioTag)
        #expect(try reader.next()?.values == FLVVectors.tags[2])
        #expect(try reader.next() == nil)
    }

    /// Every truncation of the file yields the tags that are complete and then asks for more, never throws.
    @Test func truncatedFileNeedsMoreBytes() throws {
        let ends = [13 + 11 + 3, 13 + 18 + 11 + 11, 13 + 18 + 26 + 11 + 4]  // where each tag's body ends
        for count in 0..<FLVVectors.file.count {
            var reader = FLVReader()
            let tags = try reader.readAll(Array(FLVVectors.file.prefix(count)), .whole)
            #expect(tags.count == ends.filter { $0 <= count }.count, "prefix of \(count) bytes")
        }
    }

    @Test(arguments: FeedMode.allCases)
    func wrongPreviousTagSizeThrows(mode: FeedMode) throws {
        var corrupt = FLVVectors.file
        corrupt[FLVVectors.fileHeader.count + FLVVectors.scriptTag.count - 1] = 0x0D  // PreviousTagSize 13, not 14
        var reader = FLVReader()
        let error = #expect(throws: FLVError.self) { try reader.readAll(corrupt, mode) }
        #expect(error?.code == .previousTagSizeMismatch)
        #expect(error?.description.contains("14") == true)
        // The reader stays failed.
        #expect(throws: FLVError.self) { try reader.next() }
    }

    @Test func nonZeroPreviousTagSize0Throws() {
        var corrupt = FLVVectors.file
        corrupt[12] = 0x01  // PreviousTagSize0 must be 0
        var reader = FLVReader()
        let error = #expect(throws: FLVError.self) { try reader.readAll(corrupt, .whole) }
        #expect(error?.code == .previousTagSizeMismatch)
    }

    @Test(arguments: FeedMode.allCases)
    func corruptHeaderThrows(mode: FeedMode) {
        var corrupt = FLVVectors.file
        corrupt[1] = 0x4D  // "FMV"
        var reader = FLVReader()
        let error = #expect(throws: FLVError.self) { try reader.readAll(corrupt, mode) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func unknownTagTypeThrows() {
        var corrupt = FLVVectors.file
        corrupt[FLVVectors.fileHeader.count] = 0x0F  // tag type 15
        var reader = FLVReader()
        let error = #expect(throws: FLVError.self) { try reader.readAll(corrupt, .whole) }
        #expect(error?.code == .unknownTagType)
    }

    /// An oversized DataSize is refused as soon as the tag header arrives, before any body is buffered.
    @Test func oversizedTagThrowsBeforeItsBodyArrives() {
        let header: [UInt8] = [
            0x09,              // video
            0x00, 0x10, 0x01,  // DataSize 4097
            0x00, 0x00, 0x00,  // Timestamp 0
            0x00,              // TimestampExtended 0
            0x00, 0x00, 0x00,  // StreamID 0
        ]
        var reader = FLVReader(maximumTagBodySize: 4096)
        let error = #expect(throws: FLVError.self) { try reader.readAll(FLVVectors.fileHeader + header, .whole) }
        #expect(error?.code == .tagTooLarge)
    }

    @Test func maximumIsCappedAtTheDataSizeField() {
        #expect(FLVReader(maximumTagBodySize: .max).maximumTagBodySize == 0xFF_FFFF)
        #expect(FLVReader().maximumTagBodySize == FLVTag.maximumBodySize)
    }

    @Test func readsBareTagsWithoutFileHeader() throws {
        var reader = FLVReader(expectsFileHeader: false)
        let tags = try reader.readAll(FLVVectors.scriptTag + FLVVectors.videoTag, .byteByByte)
        #expect(tags.map(\.values) == Array(FLVVectors.tags.prefix(2)))
        #expect(reader.header == nil)
    }

    /// Any single corrupted byte ends in tags or an error, never a trap, and the tags parse or throw as bodies.
    @Test func everySingleByteCorruptionIsHandled() {
        for index in FLVVectors.file.indices {
            for value: UInt8 in [0x00, 0xFF, FLVVectors.file[index] ^ 0x80] {
                var corrupt = FLVVectors.file
                corrupt[index] = value
                var reader = FLVReader()
                let result = Result { () throws(FLVError) in try reader.readAll(corrupt, .whole) }
                guard case .success(let tags) = result else { continue }
                #expect(tags.count <= 3, "byte \(index) = \(value)")
                for tag in tags {
                    _ = try? FLVVideoTagBody(parsing: tag.body)
                    _ = try? FLVAudioTagBody(parsing: tag.body)
                    _ = try? FLVMetadata(parsing: tag.body)
                }
            }
        }
    }

    /// Reading a long stream in chunks keeps memory near one tag plus one chunk.
    @Test func memoryStaysBoundedOverALongStream() throws {
        var writer = FLVWriter()
        var reader = FLVReader()
        let body = [UInt8](repeating: 0xAB, count: 10_000)
        let chunkSize = 4_096
        var total = 0
        var peak = 0
        for index in 0..<300 {
            let bytes = try writer.encode(FLVTag(type: .video, timestamp: UInt32(index), body: body))
            for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                reader.append(bytes[start..<min(start + chunkSize, bytes.count)])
                while let tag = try reader.next() {
                    #expect(tag.timestamp == UInt32(total))
                    total += 1
                }
                peak = max(peak, reader.retainedByteCount)
            }
        }
        #expect(total == 300)
        // Without compaction this would be the whole 3 MB stream.
        #expect(peak <= FLVReader.compactionThreshold * 2 + body.count + chunkSize)
    }
}
