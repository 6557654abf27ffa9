import FLV
import Foundation
import Publisher
import StreamCore
import TestSupport

/// Publishes the tags of an FLV file through our RTMP client, as fast as the connection takes them.
enum FLVPublishing {
    struct Summary {
        var videoFrames = 0
        var audioFrames = 0
    }

    static func tags(of path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        return tags
    }

    /// Connects, publishes under `key`, sends every tag, closes. Returns what was sent.
    @discardableResult
    static func publish(file path: String, to url: String, key: String,
                        options: RTMPClient.Options = .init()) async throws -> Summary {
        let client = try RTMPClient(options: options)
        try await client.connect(to: try IngestURL(parsing: url))
        try await client.publish(streamKey: key)
        var summary = Summary()
        for tag in try tags(of: path) {
            try await client.send(tag)
            if tag.type == .video, (try? FLVVideoTagBody(parsing: tag.body))?.packetType == .nalu {
                summary.videoFrames += 1
            }
            if tag.type == .audio && !tag.isSequenceHeader { summary.audioFrames += 1 }
            if await client.queuedBytes > 1 << 20 { try await client.waitForDrain(below: 256 << 10) }
        }
        await client.close()
        return summary
    }
}
