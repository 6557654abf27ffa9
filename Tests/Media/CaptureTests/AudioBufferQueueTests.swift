import Capture
import Media
import Testing

@Suite struct AudioBufferQueueTests {
    @Test func dropsTheOldestWhenFull() throws {
        let queue = AudioBufferQueue(capacity: 2)
        let format = PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 2)
        for pts in 1...3 { queue.push(PCMBuffer(format: format, frameCount: 4, pts: Int64(pts))) }
        #expect(queue.count == 2 && queue.dropped == 1)
        #expect(queue.pop()?.pts == 2)
        #expect(queue.pop()?.pts == 3)
        #expect(queue.pop() == nil)
    }
}
