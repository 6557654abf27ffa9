import ByteIO

/// One RTCP packet of a compound packet (RFC 3550 §6, RFC 4585 §6, RFC 5104 §4.3.1).
///
/// What a publisher reads: receiver reports (loss and round-trip time), generic NACKs (RFC 4585 §6.2.1), PLI
/// (§6.3.1), FIR (RFC 5104 §4.3.1) and REMB; what it writes: sender reports and a CNAME. Others are kept as `.other`.
public enum RTCPPacket: Sendable, Hashable {
    /// A sender report (PT 200).
    case senderReport(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
                      octetCount: UInt32, reports: [RTCPReportBlock])
    /// A receiver report (PT 201).
    case receiverReport(ssrc: UInt32, reports: [RTCPReportBlock])
    /// Source description with CNAMEs (PT 202); other items are skipped.
    case sourceDescription([(ssrc: UInt32, cname: String)])
    /// BYE (PT 203).
    case goodbye([UInt32])
    /// Generic NACK (PT 205, FMT 1): the lost sequence numbers of `mediaSSRC`.
    case nack(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16])
    /// Picture Loss Indication (PT 206, FMT 1).
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
    /// Full Intra Request (PT 206, FMT 4): a keyframe for each listed source.
    case fullIntraRequest(senderSSRC: UInt32, entries: [(ssrc: UInt32, sequence: UInt8)])
    /// Receiver Estimated Maximum Bitrate (PT 206, FMT 15, "REMB"), in bits per second.
    case estimatedMaximumBitrate(senderSSRC: UInt32, bitsPerSecond: UInt64, ssrcs: [UInt32])
    /// Anything else, by packet type and format/count field, with its body (after the 4-byte header).
    case other(packetType: UInt8, format: UInt8, body: [UInt8])

    /// Packet types (RFC 3550 §12.1, RFC 4585 §6.1).
    enum PacketType {
        static let senderReport: UInt8 = 200
        static let receiverReport: UInt8 = 201
        static let sourceDescription: UInt8 = 202
        static let goodbye: UInt8 = 203
        static let transportFeedback: UInt8 = 205
        static let payloadFeedback: UInt8 = 206
    }

    /// Most packets read from one compound packet.
    public static let maximumPackets = 64

    /// Reads a compound packet.
    /// - Parameter bytes: one decrypted SRTCP payload.
    /// - Throws: ``RTPError`` when a length runs past the end or the version is wrong.
    public static func decodeCompound(_ bytes: [UInt8]) throws(RTPError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw RTPError("an RTCP header is cut short") }
            let first = bytes[offset]
            guard first >> 6 == 2 else { throw RTPError("RTCP version \(first >> 6), expected 2") }
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard offset + length <= bytes.count else {
                throw RTPError("an RTCP packet of \(length) bytes runs past the \(bytes.count - offset) left")
            }
            var end = offset + length
            if first & 0x20 != 0 {
                let padding = Int(bytes[end - 1])
                guard padding >= 1, padding <= length - 4 else { throw RTPError("bad RTCP padding length") }
                end -= padding
            }
            guard packets.count < maximumPackets else {
                throw RTPError("more than \(maximumPackets) packets in one RTCP compound packet")
            }
            packets.append(try decode(type: bytes[offset + 1], count: first & 0x1F,
                                      body: ByteReader(bytes[(offset + 4)..<end])))
            offset += length
        }
        return packets
    }

    private static func decode(type: UInt8, count: UInt8, body: ByteReader) throws(RTPError) -> RTCPPacket {
        var reader = body
        func blocks(_ reader: inout ByteReader) throws(RTPError) -> [RTCPReportBlock] {
            var reports: [RTCPReportBlock] = []
            for _ in 0..<count {
                guard let block = RTCPReportBlock(reading: &reader) else {
                    throw RTPError("RTCP report block \(reports.count + 1) of \(count) is cut short")
                }
                reports.append(block)
            }
            return reports
        }
        switch type {
        case PacketType.senderReport:
            guard let ssrc = reader.readUInt32(), let ntp = reader.readUInt64(), let rtp = reader.readUInt32(),
                  let packets = reader.readUInt32(), let octets = reader.readUInt32() else {
                throw RTPError("an RTCP sender report is cut short")
            }
            return .senderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: packets,
                                 octetCount: octets, reports: try blocks(&reader))
        case PacketType.receiverReport:
            guard let ssrc = reader.readUInt32() else { throw RTPError("an RTCP receiver report is cut short") }
            return .receiverReport(ssrc: ssrc, reports: try blocks(&reader))
        case PacketType.sourceDescription:
            var items: [(ssrc: UInt32, cname: String)] = []
            for _ in 0..<count {
                guard let ssrc = reader.readUInt32() else { throw RTPError("an RTCP SDES chunk is cut short") }
                var cname = ""
                while let itemType = reader.readUInt8(), itemType != 0 {
                    guard let length = reader.readUInt8(), let text = reader.readBytes(Int(length)) else {
                        throw RTPError("an RTCP SDES item is cut short")
                    }
                    if itemType == 1 { cname = String(decoding: text, as: UTF8.self) }
                }
                // Chunks end on a 32-bit boundary (RFC 3550 §6.5).
                let misalignment = reader.readerIndex % 4
                if misalignment != 0 { reader.skip(min(4 - misalignment, reader.readableBytes)) }
                items.append((ssrc, cname))
            }
            return .sourceDescription(items)
        case PacketType.goodbye:
            var sources: [UInt32] = []
            for _ in 0..<count {
                guard let ssrc = reader.readUInt32() else { throw RTPError("an RTCP BYE is cut short") }
                sources.append(ssrc)
            }
            return .goodbye(sources)
        case PacketType.transportFeedback, PacketType.payloadFeedback:
            guard let sender = reader.readUInt32(), let media = reader.readUInt32() else {
                throw RTPError("an RTCP feedback message is cut short")
            }
            var rest = reader
            if let packet = try feedback(type: type, format: count, sender: sender, media: media, reader: &rest) {
                return packet
            }
            return .other(packetType: type, format: count, body: Array(body.bytes[body.readerIndex...]))
        default:
            return .other(packetType: type, format: count, body: Array(body.bytes[body.readerIndex...]))
        }
    }

    /// A feedback message this publisher reads, or nil for another (kept as `.other` with its body).
    private static func feedback(type: UInt8, format: UInt8, sender: UInt32, media: UInt32,
                                 reader: inout ByteReader) throws(RTPError) -> RTCPPacket? {
        switch (type, format) {
        case (PacketType.transportFeedback, 1):
            // RFC 4585 §6.2.1: PID and a bitmask of the 16 following losses.
            var lost: [UInt16] = []
            while reader.readableBytes >= 4 {
                guard let pid = reader.readUInt16(), let mask = reader.readUInt16() else { break }
                lost.append(pid)
                for bit in 0..<16 where mask & (1 << bit) != 0 { lost.append(pid &+ UInt16(bit + 1)) }
            }
            return .nack(senderSSRC: sender, mediaSSRC: media, lost: lost)
        case (PacketType.payloadFeedback, 1):
            return .pictureLossIndication(senderSSRC: sender, mediaSSRC: media)
        case (PacketType.payloadFeedback, 4):
            var entries: [(ssrc: UInt32, sequence: UInt8)] = []
            while reader.readableBytes >= 8 {
                guard let ssrc = reader.readUInt32(), let sequence = reader.readUInt8(), reader.skip(3) else { break }
                entries.append((ssrc, sequence))
            }
            return .fullIntraRequest(senderSSRC: sender, entries: entries)
        case (PacketType.payloadFeedback, 15):
            // draft-alvestrand-rmcat-remb §2.2: "REMB", SSRC count, 6-bit exponent, 18-bit mantissa, SSRCs.
            guard reader.readBytes(4) == Array("REMB".utf8) else { return nil }
            guard let count = reader.readUInt8(), let packed = reader.readUInt24() else {
                throw RTPError("an RTCP REMB is cut short")
            }
            var ssrcs: [UInt32] = []
            for _ in 0..<count {
                guard let ssrc = reader.readUInt32() else { throw RTPError("an RTCP REMB's SSRC list is cut short") }
                ssrcs.append(ssrc)
            }
            let exponent = packed >> 18
            let mantissa = UInt64(packed & 0x3FFFF)
            let bits = exponent >= 46 ? UInt64.max : mantissa << UInt64(exponent)
            return .estimatedMaximumBitrate(senderSSRC: sender, bitsPerSecond: bits, ssrcs: ssrcs)
        default:
            return nil
        }
    }

    /// The packet's bytes (a part of a compound packet).
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        func header(_ count: UInt8, _ type: UInt8) {
            writer.writeUInt8(0x80 | (count & 0x1F))
            writer.writeUInt8(type)
            writer.writeUInt16(0)  // filled in below
        }
        switch self {
        case .senderReport(let ssrc, let ntp, let rtp, let packets, let octets, let reports):
            header(UInt8(reports.count), PacketType.senderReport)
            writer.writeUInt32(ssrc)
            writer.writeUInt64(ntp)
            writer.writeUInt32(rtp)
            writer.writeUInt32(packets)
            writer.writeUInt32(octets)
            for report in reports { report.write(to: &writer) }
        case .receiverReport(let ssrc, let reports):
            header(UInt8(reports.count), PacketType.receiverReport)
            writer.writeUInt32(ssrc)
            for report in reports { report.write(to: &writer) }
        case .sourceDescription(let chunks):
            header(UInt8(chunks.count), PacketType.sourceDescription)
            for chunk in chunks {
                // At most 255 bytes, cut at a character boundary so that the name reads back the same.
                var cname = Substring(chunk.cname)
                while cname.utf8.count > 255 { cname = cname.dropLast() }
                let name = Array(cname.utf8)
                writer.writeUInt32(chunk.ssrc)
                writer.writeUInt8(1)
                writer.writeUInt8(UInt8(name.count))
                writer.writeBytes(name)
                // The item list ends with a zero byte, then pads to 32 bits (RFC 3550 §6.5).
                writer.writeUInt8(0)
                while writer.count % 4 != 0 { writer.writeUInt8(0) }
            }
        case .goodbye(let sources):
            header(UInt8(sources.count), PacketType.goodbye)
            for source in sources { writer.writeUInt32(source) }
        case .nack(let sender, let media, let lost):
            header(1, PacketType.transportFeedback)
            writer.writeUInt32(sender)
            writer.writeUInt32(media)
            var remaining = lost
            while let pid = remaining.first {
                var mask: UInt16 = 0
                remaining = remaining.filter { sequence in
                    let distance = sequence &- pid
                    if distance == 0 { return false }
                    if distance <= 16 {
                        mask |= 1 << (distance - 1)
                        return false
                    }
                    return true
                }
                writer.writeUInt16(pid)
                writer.writeUInt16(mask)
            }
        case .pictureLossIndication(let sender, let media):
            header(1, PacketType.payloadFeedback)
            writer.writeUInt32(sender)
            writer.writeUInt32(media)
        case .fullIntraRequest(let sender, let entries):
            header(4, PacketType.payloadFeedback)
            writer.writeUInt32(sender)
            writer.writeUInt32(0)
            for entry in entries {
                writer.writeUInt32(entry.ssrc)
                writer.writeUInt8(entry.sequence)
                writer.writeUInt24(0)
            }
        case .estimatedMaximumBitrate(let sender, let bits, let ssrcs):
            header(15, PacketType.payloadFeedback)
            writer.writeUInt32(sender)
            writer.writeUInt32(0)
            writer.writeBytes(Array("REMB".utf8))
            writer.writeUInt8(UInt8(truncatingIfNeeded: ssrcs.count))
            var exponent: UInt32 = 0
            var mantissa = bits
            while mantissa > 0x3FFFF {
                mantissa >>= 1
                exponent += 1
            }
            writer.writeUInt24(exponent << 18 | UInt32(mantissa))
            for ssrc in ssrcs { writer.writeUInt32(ssrc) }
        case .other(let type, let format, let body):
            header(format, type)
            writer.writeBytes(body.prefix((body.count / 4) * 4))  // whole words only, as the length counts
        }
        var bytes = writer.bytes
        let words = bytes.count / 4 - 1
        bytes[2] = UInt8(truncatingIfNeeded: words >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: words)
        return bytes
    }

    public static func == (lhs: RTCPPacket, rhs: RTCPPacket) -> Bool {
        lhs.encoded == rhs.encoded
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(encoded)
    }
}
