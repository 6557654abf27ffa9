/// One outgoing RTP stream (one SSRC): numbers packets, keeps a bounded history to answer NACKs, and counts what
/// it sent for sender reports. A value without clock or I/O.
public struct RTPStream: Sendable {
    /// The synchronization source.
    public let ssrc: UInt32
    /// The negotiated payload type.
    public let payloadType: UInt8
    /// Ticks per second of the payload's clock (90 000 for video, 48 000 for Opus).
    public let clockRate: Int
    /// Packets kept for retransmission. At 2.5 Mbit/s and 1200-byte packets, 1024 packets is about 4 s.
    public let historyCapacity: Int

    /// Packets sent (for the sender report; wraps as RFC 3550 §6.4.1 allows).
    public private(set) var packetCount: UInt32 = 0
    /// Payload octets sent.
    public private(set) var octetCount: UInt32 = 0
    /// The RTP timestamp of the newest packet.
    public private(set) var lastTimestamp: UInt32 = 0
    /// Media time (ms, the caller's clock) of the newest packet: pairs with `lastTimestamp` in sender reports.
    public private(set) var lastMediaTimeMilliseconds: Int64 = 0
    /// NACKed packets found in the history and resent.
    public private(set) var retransmitted = 0
    /// NACKed packets already gone from the history.
    public private(set) var missedRetransmissions = 0

    private var nextSequence: UInt16
    private let timestampOffset: UInt32
    private var history: [RTPPacket?]

    /// Creates a stream.
    /// - Parameters:
    ///   - ssrc: the source id (random).
    ///   - payloadType: the payload type from the answer.
    ///   - clockRate: the RTP clock.
    ///   - initialSequence: the first sequence number (random, RFC 3550 §5.1).
    ///   - timestampOffset: added to every timestamp (random, RFC 3550 §5.1).
    ///   - historyCapacity: packets kept for NACKs.
    public init(ssrc: UInt32, payloadType: UInt8, clockRate: Int, initialSequence: UInt16, timestampOffset: UInt32,
                historyCapacity: Int = 1024) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.nextSequence = initialSequence
        self.timestampOffset = timestampOffset
        self.historyCapacity = max(1, historyCapacity)
        self.history = Array(repeating: nil, count: max(1, historyCapacity))
    }

    /// The RTP timestamp of a media time.
    /// - Parameter milliseconds: media time in milliseconds since the stream's start.
    public func timestamp(milliseconds: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: milliseconds &* Int64(clockRate) / 1000) &+ timestampOffset
    }

    /// The RTP timestamp of a time in the payload's own clock (e.g. Opus samples).
    public func timestamp(ticks: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: ticks) &+ timestampOffset
    }

    /// Numbers payloads of one frame as packets; the last one gets the marker.
    /// - Parameters:
    ///   - payloads: the frame's payloads in order.
    ///   - timestamp: the frame's RTP timestamp.
    ///   - mediaTimeMilliseconds: the frame's time in ms, for sender reports.
    ///   - markLast: whether to set the marker on the last packet (video: end of frame).
    /// - Returns: the packets to send.
    public mutating func packets(_ payloads: [[UInt8]], timestamp: UInt32, mediaTimeMilliseconds: Int64,
                                 markLast: Bool) -> [RTPPacket] {
        var packets: [RTPPacket] = []
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacket(payloadType: payloadType, marker: markLast && index == payloads.count - 1,
                                   sequenceNumber: nextSequence, timestamp: timestamp, ssrc: ssrc, payload: payload)
            history[Int(nextSequence) % historyCapacity] = packet
            nextSequence &+= 1
            packetCount &+= 1
            octetCount &+= UInt32(truncatingIfNeeded: payload.count)
            packets.append(packet)
        }
        lastTimestamp = timestamp
        lastMediaTimeMilliseconds = mediaTimeMilliseconds
        return packets
    }

    /// Answers a NACK (RFC 4585 §6.2.1) from the history: the same packets again, same sequence numbers (no RTX
    /// stream is negotiated).
    /// - Parameter lost: the sequence numbers the receiver misses.
    /// - Returns: the packets still in the history.
    public mutating func retransmissions(for lost: [UInt16]) -> [RTPPacket] {
        var found: [RTPPacket] = []
        for sequence in lost {
            if let packet = history[Int(sequence) % historyCapacity], packet.sequenceNumber == sequence {
                found.append(packet)
                retransmitted += 1
            } else {
                missedRetransmissions += 1
            }
        }
        return found
    }

    /// A sender report (RFC 3550 §6.4.1) for this stream.
    /// - Parameters:
    ///   - ntpTime: the wallclock now as a 64-bit NTP timestamp.
    ///   - mediaTimeMilliseconds: the media time now, on the clock the packets' times used.
    /// - Returns: the report.
    public func senderReport(ntpTime: UInt64, mediaTimeMilliseconds: Int64) -> RTCPPacket {
        let elapsed = mediaTimeMilliseconds - lastMediaTimeMilliseconds
        let rtp = lastTimestamp &+ UInt32(truncatingIfNeeded: elapsed &* Int64(clockRate) / 1000)
        return .senderReport(ssrc: ssrc, ntpTimestamp: ntpTime, rtpTimestamp: rtp, packetCount: packetCount,
                             octetCount: octetCount, reports: [])
    }
}
