import Engine
import FLV
import Testing

/// The send queue's drop policy, with synthetic tags (bodies carry only the bytes the policy reads).
struct SendQueueTests {
    /// A video frame tag: `0x17` = keyframe + AVC, `0x27` = inter frame + AVC; packet type 1 = NALU.
    static func video(_ timestamp: UInt32, key: Bool = false) -> FLVTag {
        FLVTag(type: .video, timestamp: timestamp, body: [key ? 0x17 : 0x27, 0x01, 0x00, 0x00, 0x00, 0xAA])
    }

    /// An AAC raw frame tag: `0xAF` = AAC 44 kHz 16-bit stereo, packet type 1 = raw.
    static func audio(_ timestamp: UInt32) -> FLVTag {
        FLVTag(type: .audio, timestamp: timestamp, body: [0xAF, 0x01, 0x21])
    }

    /// An AVC sequence header: keyframe + AVC, packet type 0.
    static let videoHeader = FLVTag(type: .video, timestamp: 0, body: [0x17, 0x00, 0x00, 0x00, 0x00, 0x01])

    private static func drain(_ queue: inout SendQueue) -> [FLVTag] {
        var tags: [FLVTag] = []
        while let tag = queue.dequeue() { tags.append(tag) }
        return tags
    }

    @Test func startsAtAKeyframeAndKeepsOrder() {
        var queue = SendQueue()
        #expect(!queue.enqueue(Self.audio(0)).accepted)
        #expect(!queue.enqueue(Self.video(0)).accepted)
        #expect(queue.enqueue(Self.videoHeader).accepted)
        #expect(queue.enqueue(Self.video(33, key: true)).accepted)
        #expect(queue.enqueue(Self.audio(40)).accepted)
        #expect(queue.enqueue(Self.video(66)).accepted)
        #expect(queue.durationMilliseconds == 33)
        let tags = Self.drain(&queue)
        #expect(tags.map(\.timestamp) == [0, 33, 40, 66])
        #expect(queue.isEmpty && queue.byteCount == 0)
    }

    @Test func dropsNonKeyframesPastTheFirstThresholdButKeepsAudioAndKeyframes() {
        var queue = SendQueue(policy: .init(dropNonKeyframesAfterMilliseconds: 700, dropVideoAfterMilliseconds: 900),
                              startsAtKeyframe: false)
        queue.enqueue(Self.video(0, key: true))
        for frame in 1...21 {
            queue.enqueue(Self.video(UInt32(frame * 33)))
            queue.enqueue(Self.audio(UInt32(frame * 33)))
        }
        #expect(queue.count == 43)
        // 23 × 33 = 759 ms > 700: every queued inter frame goes, this one included.
        let result = queue.enqueue(Self.video(759))
        #expect(!result.accepted)
        #expect(result.droppedVideoFrames == 22)
        #expect(result.droppedAudioFrames == 0)
        #expect(!result.needsKeyframe)
        #expect(queue.isWaitingForKeyframe)
        // Later inter frames reference dropped ones: dropped until the next keyframe; audio still flows.
        #expect(!queue.enqueue(Self.video(792)).accepted)
        #expect(queue.enqueue(Self.audio(792)).accepted)
        let sent = Self.drain(&queue)
        #expect(sent.filter { $0.type == .audio }.count == 22)
        #expect(sent.filter { $0.type == .video }.map(\.timestamp) == [0])
        // The network caught up; the next keyframe reopens video.
        #expect(queue.enqueue(Self.video(825, key: true)).accepted)
        #expect(queue.enqueue(Self.video(858)).accepted)
        #expect(Self.drain(&queue).map(\.timestamp) == [825, 858])
        #expect(queue.statistics.droppedVideoFrames == 23 && queue.statistics.droppedAudioFrames == 0)
    }

    @Test func pastTheVideoThresholdAllVideoGoesButTheAudioStays() {
        var queue = SendQueue(startsAtKeyframe: false)
        queue.enqueue(Self.videoHeader)
        queue.enqueue(Self.video(0, key: true))
        var last = EnqueueResultProbe()
        for step in 1...30 {
            last.record(queue.enqueue(Self.audio(UInt32(step * 32))))
        }
        // 30 × 32 = 960 ms of audio and a keyframe: past 900 ms even without inter frames. The keyframe goes, the
        // sound stays, and no keyframe is asked for (the link is slow; the next one comes on schedule).
        #expect(!last.lastNeedsKeyframe)
        #expect(queue.statistics.videoFlushes == 1 && queue.statistics.flushes == 0)
        #expect(queue.statistics.droppedKeyframes == 1 && queue.statistics.droppedAudioFrames == 0)
        #expect(queue.isWaitingForKeyframe)
        #expect(!queue.enqueue(Self.video(990)).accepted)
        // A keyframe that arrives is kept: video starts again from it.
        #expect(queue.enqueue(Self.video(1000, key: true)).accepted)
        let sent = Self.drain(&queue)
        #expect(sent.first == Self.videoHeader)
        #expect(sent.filter { $0.type == .audio }.count == 30)
        #expect(sent.filter { $0.type == .video && !$0.isSequenceHeader }.map(\.timestamp) == [1000])
    }

    @Test func aHopelessQueueFlushesMediaButNotHeadersAndRestartsAtAKeyframe() {
        var queue = SendQueue(startsAtKeyframe: false)
        queue.enqueue(Self.videoHeader)
        queue.enqueue(Self.video(0, key: true))
        var last = EnqueueResultProbe()
        for step in 1...97 {
            last.record(queue.enqueue(Self.audio(UInt32(step * 32))))
        }
        // 97 × 32 = 3104 ms of audio: past 3 s, the link does not even carry the sound.
        #expect(last.lastNeedsKeyframe)
        #expect(queue.statistics.flushes == 1)
        #expect(queue.statistics.droppedKeyframes == 1)
        #expect(queue.statistics.droppedAudioFrames == 97)
        #expect(queue.count == 1 && queue.dequeue() == Self.videoHeader)
        // Until a keyframe, all media waits; the keyframe itself is kept.
        #expect(!queue.enqueue(Self.audio(3200)).accepted)
        #expect(!queue.enqueue(Self.video(3200)).accepted)
        #expect(queue.enqueue(Self.video(3233, key: true)).accepted)
        #expect(queue.enqueue(Self.audio(3240)).accepted)
    }

    @Test func aKeyframeArrivingIntoAHopelessQueueIsKept() {
        var queue = SendQueue(startsAtKeyframe: false)
        // 94 audio frames span 2976 ms; the keyframe at 3040 takes the queue past 3 s.
        for step in 0..<94 { queue.enqueue(Self.audio(UInt32(step * 32))) }
        let result = queue.enqueue(Self.video(3040, key: true))
        #expect(result.accepted)
        #expect(result.droppedAudioFrames == 94)
        #expect(!result.needsKeyframe && !queue.isWaitingForKeyframe)
        #expect(queue.dequeue()?.timestamp == 3040)
    }

    @Test func restartAtKeyframeDropsMediaAndKeepsHeaders() {
        var queue = SendQueue(startsAtKeyframe: false)
        queue.enqueue(Self.video(0, key: true))
        queue.enqueue(Self.audio(10))
        queue.enqueue(Self.videoHeader)
        #expect(queue.restartAtKeyframe() == 2)
        #expect(queue.isWaitingForKeyframe)
        #expect(Self.drain(&queue) == [Self.videoHeader])
    }

    @Test func durationSurvivesATimestampWrap() {
        var queue = SendQueue(startsAtKeyframe: false)
        queue.enqueue(Self.video(UInt32.max - 9, key: true))
        queue.enqueue(Self.audio(20))
        #expect(queue.durationMilliseconds == 30)
    }

    @Test(arguments: [
        (FLVTag(type: .scriptData, timestamp: 0, body: [0x02]), SendQueue.Kind.header),
        (SendQueueTests.videoHeader, SendQueue.Kind.header),
        (FLVTag(type: .audio, timestamp: 0, body: [0xAF, 0x00, 0x11, 0x90]), SendQueue.Kind.header),
        (SendQueueTests.audio(0), SendQueue.Kind.audio),
        (SendQueueTests.video(0, key: true), SendQueue.Kind.video(isKeyframe: true)),
        (SendQueueTests.video(0), SendQueue.Kind.video(isKeyframe: false)),
    ])
    func classifiesTags(tag: FLVTag, kind: SendQueue.Kind) {
        #expect(SendQueue.Kind(of: tag) == kind)
    }

    @Test func anUnsendableFrameDropsTheFramesThatReferenceItUpToTheNextKeyframe() {
        var queue = SendQueue()
        _ = queue.enqueue(Self.video(0, key: true))
        _ = queue.dequeue()                       // sent
        _ = queue.enqueue(Self.video(33))         // the one too large for the connection, taken out to send
        _ = queue.dequeue()
        for timestamp in [66, 100] as [UInt32] { _ = queue.enqueue(Self.video(timestamp)) }
        _ = queue.enqueue(Self.audio(110))
        _ = queue.enqueue(Self.video(133, key: true))
        _ = queue.enqueue(Self.video(166))
        #expect(queue.skipVideoUntilKeyframe() == 2)
        #expect(Self.drain(&queue).map(\.timestamp) == [110, 133, 166])
        #expect(queue.statistics.droppedVideoFrames == 2)
        // With no keyframe queued, later non-keyframes wait for one; audio flows.
        _ = queue.enqueue(Self.video(200))
        #expect(queue.skipVideoUntilKeyframe() == 1)
        #expect(!queue.enqueue(Self.video(233)).accepted)
        #expect(queue.enqueue(Self.audio(240)).accepted)
        #expect(queue.enqueue(Self.video(266, key: true)).accepted)
        #expect(Self.drain(&queue).map(\.timestamp) == [240, 266])
    }
}

/// Remembers the last enqueue result's keyframe request.
private struct EnqueueResultProbe {
    var lastNeedsKeyframe = false
    mutating func record(_ result: SendQueue.EnqueueResult) {
        if result.needsKeyframe { lastNeedsKeyframe = true }
    }
}
