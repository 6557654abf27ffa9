import ByteIO
import DTLS
import Encoders
import FLV
import Glibc
import ICE
import RTP
import SDP
import SRTP
import Transport

/// The publishing side of one WebRTC session on an event loop: ICE, DTLS, SRTP and the RTP senders over one UDP
/// socket. A loop-thread object; ``WebRTCPublisher`` is its thread-safe face.
///
/// The machines do the protocol work (ICEAgent, RTPStream, Pacer, LossBasedBitrate); this driver demultiplexes
/// datagrams (RFC 7983: STUN 0–3, DTLS 20–63, SRTP/SRTCP 128–191), runs their actions and keeps one timer at the
/// earliest deadline any of them has.
final class PublisherPeer {
    private enum Phase {
        case idle
        case gathering(CheckedContinuation<String, any Error>)
        case offered(WHIPOffer)
        case connecting(Connecting)
        case connected(Media)
        case finished(WebRTCError)
    }

    private struct Connecting {
        var offer: WHIPOffer
        var dtls: DTLSEndpoint
        var streams: Streams
        var remote: TransportAddress?
    }

    private struct Streams {
        var video: RTPStream?
        var audio: RTPStream?
        var videoLastSent: (media: Int64, at: Duration)?
        var audioLastSent: (media: Int64, at: Duration)?
    }

    private struct Media {
        var dtls: DTLSEndpoint
        var outbound: SRTPSession
        var inbound: SRTPSession
        var streams: Streams
        var remote: TransportAddress
    }

    let loop: EventLoop
    private let configuration: WebRTCPublisher.Configuration
    private let emit: @Sendable (WebRTCEvent) -> Void
    private let origin = ContinuousClock.now
    private let certificate: DTLSCertificate
    private var socket: UDPSocket?
    private var ice: ICEAgent
    private var phase: Phase = .idle
    private var waiters: [CheckedContinuation<Void, any Error>] = []
    private var timer: Scheduled?
    private var timerDeadline: Duration?
    private var pacer: Pacer
    private var estimate: LossBasedBitrate
    private let packetizer: H264Packetizer
    private var nextReport: Duration = .zero
    private var sentSinceReport = 0
    private var nackedSinceReport = 0
    /// Sequence numbers already NACKed: a receiver repeats a NACK until the packet comes, and a repeat is not a new
    /// loss. Bounded: cleared when it passes 4096 entries.
    private var nacked: Set<UInt32> = []
    private var counters = WebRTCStatistics()

    /// The counters, with the pacer's and the socket's drops.
    var statistics: WebRTCStatistics {
        var statistics = counters
        statistics.dropped = pacer.dropped + (socket?.sendDrops ?? 0)
        return statistics
    }

    init(configuration: WebRTCPublisher.Configuration, loop: EventLoop,
         emit: @escaping @Sendable (WebRTCEvent) -> Void) throws(WebRTCError) {
        precondition(loop.inEventLoop, "a PublisherPeer is made on its loop's thread")
        self.loop = loop
        self.configuration = configuration
        self.emit = emit
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw WebRTCError(.setup, "cannot make a DTLS certificate: \(error)")
        }
        var random = SystemRandomNumberGenerator()
        ice = ICEAgent(configuration: .init(localUfrag: Self.token(8, &random), localPwd: Self.token(24, &random),
                                            tieBreaker: random.next(), stunServer: configuration.stunServer,
                                            consentInterval: configuration.consentInterval,
                                            consentTimeout: configuration.consentTimeout,
                                            silenceTimeout: configuration.silenceTimeout),
                       hostAddresses: [])
        packetizer = H264Packetizer(maximumPayloadSize: configuration.maximumPayloadSize)
        pacer = Pacer(bitsPerSecond: (configuration.videoBitrateKbps + configuration.audioBitrateKbps) * 1000)
        estimate = LossBasedBitrate(maximumKbps: configuration.videoBitrateKbps)
        counters.estimateKbps = estimate.estimateKbps
    }

    // MARK: - Signalling

    /// Binds the socket, gathers candidates and resumes `continuation` with the offer's SDP.
    func makeOffer(_ continuation: CheckedContinuation<String, any Error>) {
        guard case .idle = phase else {
            continuation.resume(throwing: WebRTCError(.setup, "this session already made its offer"))
            return
        }
        let socket: UDPSocket
        do {
            socket = try UDPSocket.bind(host: configuration.bindHost, port: 0, on: loop) { [weak self] bytes, source in
                self?.receive(bytes, from: source)
            }
        } catch {
            continuation.resume(throwing: WebRTCError(.setup, "cannot open a UDP socket: \(error)"))
            return
        }
        self.socket = socket
        let port = UInt16(truncatingIfNeeded: socket.localPort)
        let hosts: [TransportAddress]
        if configuration.bindHost == "0.0.0.0" || configuration.bindHost == "::" {
            hosts = InterfaceAddresses.current(includeLoopback: configuration.includeLoopback)
                .compactMap { TransportAddress(ip: $0.ip, port: port) }
        } else {
            hosts = TransportAddress(host: configuration.bindHost, port: port).map { [$0] } ?? []
        }
        guard !hosts.isEmpty else {
            continuation.resume(throwing: WebRTCError(.setup, "no network interface to offer a candidate on"))
            return
        }
        ice = ICEAgent(configuration: ice.configuration, hostAddresses: hosts)
        phase = .gathering(continuation)
        run(ice.startGathering(now: now))
        rearm()
    }

    /// Reads the endpoint's answer and starts ICE.
    func accept(answer text: String) throws(WebRTCError) {
        guard case .offered(let offer) = phase else {
            throw WebRTCError(.answer, "an answer arrived before the offer was made, or twice")
        }
        let answer: WHIPAnswer
        do {
            answer = try WHIPAnswer(parsing: text, offer: offer)
        } catch {
            throw WebRTCError(.answer, "the WHIP endpoint's SDP answer cannot be used: \(error)")
        }
        let dtls: DTLSEndpoint
        do {
            dtls = try DTLSEndpoint(certificate: certificate, role: answer.setup == .active ? .server : .client,
                                    remoteFingerprints: answer.fingerprints.map { ($0.algorithm, $0.digest) })
        } catch {
            throw WebRTCError(.dtls, "cannot set up DTLS: \(error)")
        }
        var random = SystemRandomNumberGenerator()
        var streams = Streams()
        if let video = offer.video, let payloadType = answer.videoPayloadType {
            streams.video = RTPStream(ssrc: video.ssrc, payloadType: payloadType, clockRate: 90_000,
                                      initialSequence: random.next(), timestampOffset: random.next())
        }
        if let audio = offer.audio, let payloadType = answer.audioPayloadType {
            streams.audio = RTPStream(ssrc: audio.ssrc, payloadType: payloadType, clockRate: 48_000,
                                      initialSequence: random.next(), timestampOffset: random.next())
        }
        let candidates = answer.candidates.compactMap { candidate -> ICECandidate? in
            guard let address = TransportAddress(host: candidate.address, port: UInt16(clamping: candidate.port)) else {
                return nil  // an mDNS name: not resolvable here
            }
            return ICECandidate(kind: candidate.kind, address: address, priority: candidate.priority,
                                foundation: candidate.foundation)
        }
        phase = .connecting(Connecting(offer: offer, dtls: dtls, streams: streams))
        run(ice.start(remoteUfrag: answer.iceUfrag, remotePwd: answer.icePwd, remoteCandidates: candidates, now: now))
        rearm()
    }

    /// Resumes `continuation` once media can flow, or with the failure.
    func waitUntilConnected(_ continuation: CheckedContinuation<Void, any Error>) {
        switch phase {
        case .connected: continuation.resume()
        case .finished(let error): continuation.resume(throwing: error)
        case .idle, .gathering, .offered, .connecting: waiters.append(continuation)
        }
    }

    /// Sends close_notify and a BYE, closes the socket.
    func close() {
        if case .connected(let media) = phase, let socket {
            let ssrcs = [media.streams.video?.ssrc, media.streams.audio?.ssrc].compactMap { $0 }
            if let bye = try? media.outbound.protect(rtcp: RTCPPacket.goodbye(ssrcs).encoded) {
                socket.send(bye, to: media.remote)
            }
            for datagram in media.dtls.close() { socket.send(datagram, to: media.remote) }
        }
        finish(WebRTCError(.closed, "the WebRTC session was closed"), notify: false)
    }

    // MARK: - Media

    /// Packetizes, protects and queues one H.264 access unit.
    func send(video packet: EncodedVideoPacket) {
        guard case .connected(var media) = phase, var stream = media.streams.video else {
            counters.droppedBeforeConnected += 1
            return
        }
        let units: [ArraySlice<UInt8>]
        switch packet.framing {
        case .annexB: units = AnnexB.split(packet.data)
        case .lengthPrefixed: units = (try? AnnexB.splitLengthPrefixed(packet.data, lengthSize: 4)) ?? []
        }
        let payloads = packetizer.payloads(for: units)
        let packets = stream.packets(payloads, timestamp: stream.timestamp(milliseconds: packet.pts),
                                     mediaTimeMilliseconds: packet.pts, markLast: true)
        media.streams.video = stream
        media.streams.videoLastSent = (packet.pts, now)
        counters.videoFrames += 1
        queue(packets, priority: .normal, media: media)
        phase = .connected(media)
        pump()
    }

    /// Protects and queues one Opus packet (RFC 7587: one per RTP packet, 48 kHz timestamps).
    func send(audio packet: EncodedAudioPacket) {
        guard case .connected(var media) = phase, var stream = media.streams.audio else {
            counters.droppedBeforeConnected += 1
            return
        }
        let milliseconds = packet.ptsMilliseconds
        let packets = stream.packets([packet.data], timestamp: stream.timestamp(ticks: packet.pts),
                                     mediaTimeMilliseconds: milliseconds, markLast: false)
        media.streams.audio = stream
        media.streams.audioLastSent = (milliseconds, now)
        counters.audioPackets += 1
        queue(packets, priority: .high, media: media)
        phase = .connected(media)
        pump()
    }

    private func queue(_ packets: [RTPPacket], priority: Pacer.Priority, media: Media) {
        for packet in packets {
            guard let protected = try? media.outbound.protect(rtp: packet.encoded) else { continue }
            pacer.enqueue(protected, priority: priority, now: now)
            counters.packetsSent += 1
            counters.bytesSent += protected.count
            sentSinceReport += 1
        }
    }

    private func pump() {
        guard case .connected(let media) = phase, let socket else { return }
        for datagram in pacer.dequeue(now: now) { socket.send(datagram, to: media.remote) }
        rearm()
    }

    // MARK: - Datagrams

    private func receive(_ bytes: [UInt8], from source: TransportAddress) {
        guard let first = bytes.first else { return }
        switch first {
        case 0...3:
            guard let address = TransportAddress(ip: source.ip, port: source.port) else { return }
            run(ice.receive(bytes, from: address, now: now))
        case 20...63:
            receiveDTLS(bytes, from: source)
        case 128...191:
            receiveRTCP(bytes)
        default:
            break  // RFC 7983: nothing else belongs on this port
        }
        rearm()
    }

    private func receiveDTLS(_ bytes: [UInt8], from source: TransportAddress) {
        guard case .connecting(var connecting) = phase else {
            // After the handshake: a peer that missed our last flight sends its own again (OpenSSL answers with
            // ours), or it closes the association.
            guard case .connected(let media) = phase, let output = try? media.dtls.receive(bytes) else { return }
            ice.heard(now: now)
            for datagram in output.datagrams { socket?.send(datagram, to: source) }
            if output.closed { fail(WebRTCError(.ice, "the endpoint closed the DTLS association (close_notify)")) }
            return
        }
        if connecting.remote == nil { connecting.remote = source }
        do {
            let output = try connecting.dtls.receive(bytes)
            for datagram in output.datagrams { socket?.send(datagram, to: source) }
            phase = .connecting(connecting)
            if let keys = output.keys { keyed(keys, connecting: connecting) }
        } catch {
            fail(WebRTCError(.dtls, "DTLS with the WHIP endpoint failed: \(error)"))
        }
    }

    private func keyed(_ keys: SRTPKeyingMaterial, connecting: Connecting) {
        guard let remote = ice.selectedAddress ?? connecting.remote
        else { return }
        do {
            let media = Media(dtls: connecting.dtls,
                              outbound: try SRTPSession(masterKey: keys.localKey, direction: .outbound),
                              inbound: try SRTPSession(masterKey: keys.remoteKey, direction: .inbound),
                              streams: connecting.streams, remote: remote)
            phase = .connected(media)
        } catch {
            fail(WebRTCError(.srtp, "cannot key SRTP: \(error)"))
            return
        }
        nextReport = now + .milliseconds(500)
        emit(.connected(remote: remote.description))
        emit(.keyframeRequested)
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    private func receiveRTCP(_ bytes: [UInt8]) {
        guard case .connected(var media) = phase, RTPPacket.isRTCP(bytes),
              let plain = try? media.inbound.unprotect(rtcp: bytes),
              let packets = try? RTCPPacket.decodeCompound(plain) else { return }
        // Only what decrypts counts: a forged datagram cannot keep a dead path alive.
        ice.heard(now: now)
        let ours = Set([media.streams.video?.ssrc, media.streams.audio?.ssrc].compactMap { $0 })
        for packet in packets {
            switch packet {
            case .receiverReport(_, let blocks), .senderReport(_, _, _, _, _, let blocks):
                for block in blocks where block.ssrc == media.streams.video?.ssrc {
                    counters.receiverReports += 1
                    counters.reportedLoss = block.lossRatio
                    let arrival = NTPTime.middle(Self.wallclockNTP())
                    if let rtt = NTPTime.roundTrip(block, arrival: arrival) { counters.roundTrip = rtt }
                }
            case .nack(_, let ssrc, let lost) where ours.contains(ssrc):
                counters.nacksReceived += 1
                if nacked.count > 4096 { nacked.removeAll(keepingCapacity: true) }
                for sequence in lost where nacked.insert(ssrc &* 65536 &+ UInt32(sequence)).inserted {
                    nackedSinceReport += 1
                }
                var resent: [RTPPacket] = []
                if ssrc == media.streams.video?.ssrc { resent = media.streams.video?.retransmissions(for: lost) ?? [] }
                if ssrc == media.streams.audio?.ssrc { resent = media.streams.audio?.retransmissions(for: lost) ?? [] }
                counters.retransmitted += resent.count
                counters.missedRetransmissions += lost.count - resent.count
                for packet in resent {
                    if let protected = try? media.outbound.protect(rtp: packet.encoded) {
                        pacer.enqueue(protected, priority: .high, now: now)
                    }
                }
            case .pictureLossIndication(_, let ssrc) where ssrc == media.streams.video?.ssrc:
                counters.keyframeRequests += 1
                emit(.keyframeRequested)
            case .fullIntraRequest(_, let entries) where entries.contains { $0.ssrc == media.streams.video?.ssrc }:
                counters.keyframeRequests += 1
                emit(.keyframeRequested)
            case .estimatedMaximumBitrate(_, let bits, _):
                estimate.receiverEstimate(bitsPerSecond: bits)
            default:
                break
            }
        }
        phase = .connected(media)
        pump()
    }

    // MARK: - Timers

    private var now: Duration { ContinuousClock.now - origin }

    private func tick() {
        timer = nil
        timerDeadline = nil
        run(ice.tick(now: now))
        switch phase {
        case .connecting(let connecting):
            if let timeout = connecting.dtls.timeout, timeout <= .milliseconds(1) {
                retransmitDTLS(connecting.dtls, to: connecting.remote)
            }
        case .connected(let media):
            if now >= nextReport { report(media) }
        case .idle, .gathering, .offered, .finished:
            break
        }
        pump()
        rearm()
    }

    private func retransmitDTLS(_ dtls: DTLSEndpoint, to remote: TransportAddress?) {
        guard let destination = remote ?? ice.selectedAddress
        else { return }
        do {
            for datagram in try dtls.handleTimeout().datagrams { socket?.send(datagram, to: destination) }
        } catch {
            fail(WebRTCError(.dtls, "\(error)"))
        }
    }

    /// Sender reports with a CNAME every second (RFC 3550 §6.2 allows less; receivers need them for lip sync), and
    /// the bandwidth estimate's update from the loss seen since the last one.
    private func report(_ media: Media) {
        nextReport = now + .seconds(1)
        let ntp = Self.wallclockNTP()
        var compound: [UInt8] = []
        for (stream, last) in [(media.streams.video, media.streams.videoLastSent),
                               (media.streams.audio, media.streams.audioLastSent)] {
            guard let stream, let last else { continue }
            let elapsed = (now - last.at).components
            let mediaNow = last.media + elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
            compound += stream.senderReport(ntpTime: ntp, mediaTimeMilliseconds: mediaNow).encoded
            compound += RTCPPacket.sourceDescription([(stream.ssrc, configuration.cname)]).encoded
        }
        if !compound.isEmpty, let protected = try? media.outbound.protect(rtcp: compound) {
            pacer.enqueue(protected, priority: .high, now: now)
        }
        // Packets the receiver NACKed are packets the path lost, even when the resend arrives in time for its RR.
        let nackLoss = sentSinceReport > 0 ? Double(nackedSinceReport) / Double(sentSinceReport) : 0
        sentSinceReport = 0
        nackedSinceReport = 0
        let before = estimate.estimateKbps
        let kbps = estimate.report(lossRatio: max(nackLoss, counters.reportedLoss))
        counters.estimateKbps = kbps
        if kbps != before {
            pacer.setRate(bitsPerSecond: (kbps + configuration.audioBitrateKbps) * 1000)
            emit(.bitrateEstimate(kbps: kbps))
        }
    }

    private func rearm() {
        var deadlines: [Duration] = []
        if let deadline = ice.nextDeadline { deadlines.append(deadline) }
        if let next = pacer.nextSendTime(now: now) { deadlines.append(next) }
        switch phase {
        case .connecting(let connecting):
            if let timeout = connecting.dtls.timeout { deadlines.append(now + timeout) }
        case .connected:
            deadlines.append(nextReport)
        case .idle, .gathering, .offered, .finished:
            break
        }
        guard let deadline = deadlines.min() else { return }
        if let timerDeadline, timerDeadline <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = loop.scheduleOnLoop(after: max(.zero, deadline - now)) { [weak self] in self?.tick() }
    }

    // MARK: - ICE actions

    private func run(_ actions: [ICEAgent.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes, let destination):
                socket?.send(bytes, to: destination)
            case .gathered(let candidates):
                gathered(candidates)
            case .connected(let address):
                iceConnected(to: address)
            case .failed(let reason):
                fail(WebRTCError(.ice, "no path to the WHIP endpoint: \(reason)",
                                 silentFor: ice.lastHeardFromPeer.map { now - $0 }))
            }
        }
    }

    private func gathered(_ candidates: [ICECandidate]) {
        guard case .gathering(let continuation) = phase else { return }
        var random = SystemRandomNumberGenerator()
        let digest = certificate.sha256Fingerprint
        let offer = WHIPOffer(
            sessionID: random.next() >> 2, iceUfrag: ice.configuration.localUfrag,
            icePwd: ice.configuration.localPwd, fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: digest),
            candidates: candidates.map { candidate in
                SDPCandidate(foundation: candidate.foundation, priority: candidate.priority,
                             address: candidate.address.host, port: Int(candidate.address.port),
                             kind: candidate.kind,
                             related: candidate.base.map { ($0.host, Int($0.port)) })
            },
            cname: configuration.cname,
            video: configuration.sendVideo
                ? .init(profileLevelID: configuration.profileLevelID, ssrc: random.next()) : nil,
            audio: configuration.sendAudio ? .init(ssrc: random.next()) : nil)
        phase = .offered(offer)
        continuation.resume(returning: offer.text)
    }

    private func iceConnected(to address: TransportAddress) {
        guard case .connecting(var connecting) = phase else { return }
        connecting.remote = address
        phase = .connecting(connecting)
        guard !connecting.dtls.isConnected else { return }
        do {
            let output = try connecting.dtls.start()
            for datagram in output.datagrams { socket?.send(datagram, to: address) }
        } catch {
            fail(WebRTCError(.dtls, "cannot start DTLS: \(error)"))
        }
    }

    private func fail(_ error: WebRTCError) {
        finish(error, notify: true)
    }

    private func finish(_ error: WebRTCError, notify: Bool) {
        if case .finished = phase { return }
        if case .gathering(let continuation) = phase { continuation.resume(throwing: error) }
        phase = .finished(error)
        timer?.cancel()
        timer = nil
        socket?.close()
        for waiter in waiters { waiter.resume(throwing: error) }
        waiters.removeAll()
        if notify { emit(.failed(error)) }
    }

    // MARK: - Helpers

    private static func token(_ length: Int, _ random: inout SystemRandomNumberGenerator) -> String {
        // RFC 8839 §5.4: ice-char is ALPHA / DIGIT / "+" / "/".
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
    }

    private static func wallclockNTP() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return NTPTime.timestamp(unixNanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }
}
