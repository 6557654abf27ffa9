/// What a session remembers of one SSRC's packets (RFC 3711 §3.3.1, §3.3.2): the highest index so far (for SRTP
/// the rollover counter and highest sequence number, `ROC << 16 | s_l`; for SRTCP the SRTCP index), and for an
/// inbound session which of the ``windowSize`` indices up to it have been received.
///
/// A class, so that the session's dictionary holds it by reference and a packet never copies the window.
final class SRTPStreamState {
    /// The replay window (§3.3.2 asks for at least 64): wide enough for NACK retransmissions and reordering.
    static let windowSize: UInt64 = 1024

    /// The highest index accepted (inbound) or sent (outbound).
    private(set) var highest: UInt64
    /// Bit `index % windowSize` set: that index, within the window below ``highest``, was received. Empty for an
    /// outbound stream, which allows any index again (NACK retransmissions).
    private var received: [UInt64]

    /// A stream whose first packet has `index`; `tracksReplays` for inbound ones.
    init(first index: UInt64, tracksReplays: Bool) {
        highest = index
        received = tracksReplays ? Array(repeating: 0, count: Int(Self.windowSize / 64)) : []
        if tracksReplays { mark(index) }
    }

    /// The 48-bit index of an SRTP packet with `sequence` (§3.3.1, Appendix A): its ROC is the highest's, one
    /// less when it comes from before a wrap, one more when it wraps. Nil when that ROC would be negative (a packet
    /// from before the stream's first), or past 2^32 - 1.
    func estimate(sequence: UInt16) -> UInt64? {
        let rollover = highest >> 16
        let last = highest & 0xFFFF
        let sequence = UInt64(sequence)
        var guess = rollover
        if last < 0x8000 {
            if sequence > last && sequence - last > 0x8000 {
                guard rollover > 0 else { return nil }
                guess = rollover - 1
            }
        } else if last - 0x8000 > sequence {
            guess = rollover + 1
        }
        guard guess <= UInt64(UInt32.max) else { return nil }
        return guess << 16 | sequence
    }

    /// Why an inbound index must be dropped, or nil when it is new.
    func replayProblem(_ index: UInt64) -> String? {
        guard index <= highest else { return nil }
        guard highest - index < Self.windowSize else {
            return "index \(index) is older than the replay window (\(Self.windowSize) below \(highest))"
        }
        let bit = index % Self.windowSize
        return received[Int(bit / 64)] & (1 << (bit % 64)) != 0 ? "index \(index) was already received" : nil
    }

    /// Records an index: authenticated, for an inbound stream; sent, for an outbound one.
    func accept(_ index: UInt64) {
        guard !received.isEmpty else {
            highest = max(highest, index)
            return
        }
        if index > highest {
            if index - highest >= Self.windowSize {
                for word in received.indices { received[word] = 0 }
            } else {
                var cleared = highest + 1
                while cleared <= index {
                    let bit = cleared % Self.windowSize
                    received[Int(bit / 64)] &= ~(1 << (bit % 64))
                    cleared += 1
                }
            }
            highest = index
        }
        mark(index)
    }

    private func mark(_ index: UInt64) {
        let bit = index % Self.windowSize
        received[Int(bit / 64)] |= 1 << (bit % 64)
    }
}
