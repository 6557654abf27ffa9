import ByteIO
import DTLS
import FLV
import ICE
import RTP
import SDP
import SRTP
import Transport

/// Every WHIP session on one UDP port, on one event loop: the datagram routes (RFC 7983, by ufrag then address), a
/// table of sessions, and each session's timer on the loop. A loop-thread object; ``WebRTCServer`` is its face.
///
/// The decisions are the machines' (`DatagramRoutes`, `ICELiteResponder`, `ServerAnswer`), OpenSSL's and
/// `SRTPSession`'s: this class moves datagrams between them and the socket, and runs their deadlines.
final class ServerPort {
    let loop: EventLoop
    private let configuration: WebRTCServer.Configuration
    private let emit: @Sendable (WebRTCServerEvent) -> Void
    private let onMedia: (@Sendable (WHIPMediaEvent) -> Void)?
    private let origin = ContinuousClock.now
    /// One certificate for every session: its fingerprint goes into each answer.
    private let certificate: DTLSCertificate
    private let fingerprint: DTLSFingerprint
    private let socket: UDPSocket
    private let candidateHost: String
    private var routes: DatagramRoutes<Int>
    private var sessions: [Int: ServerPeer] = [:]
    private var serialByID: [String: Int] = [:]
    /// The session feeding each app and stream tag (one LL-HLS address): one at a time.
    private var serialByStream: [String: Int] = [:]
    /// What WHEP players of each app and stream tag get, while a publisher is connected there.
    private var forwarding: [String: ForwardedStream] = [:]
    private var nextSerial = 1
    private var refusedFull = 0
    /// Gives back what ended sessions freed (DTLS and SRTP state, caches): a burst of sessions that never connect
    /// must not leave the server at its peak.
    private let trim = MemoryTrim()
    private var random = SystemRandomNumberGenerator()

    /// The bound port.
    var port: Int { socket.localPort }

    init(configuration: WebRTCServer.Configuration, loop: EventLoop,
         emit: @escaping @Sendable (WebRTCServerEvent) -> Void) throws(WebRTCServerError) {
        precondition(loop.inEventLoop, "a ServerPort is made on its loop's thread")
        self.loop = loop
        self.configuration = configuration
        self.emit = emit
        onMedia = configuration.onMedia
        candidateHost = configuration.candidateHost ?? configuration.listenHost
        guard TransportAddress(host: candidateHost, port: 1) != nil, candidateHost != "0.0.0.0", candidateHost != "::"
        else {
            throw WebRTCServerError(.setup, "the WebRTC candidate address must be one numeric IP address clients can "
                + "reach, not '\(candidateHost)': give the public address")
        }
        do {
            certificate = try DTLSCertificate(commonName: "stream-server")
        } catch {
            throw WebRTCServerError(.setup, "cannot make the DTLS certificate: \(error)")
        }
        fingerprint = DTLSFingerprint(algorithm: "sha-256", digest: certificate.sha256Fingerprint)
        routes = DatagramRoutes(maximumSessions: configuration.maximumSessions)
        // The socket's callback needs self, which is not whole until the socket exists: a box breaks the knot.
        let box = WeakBox()
        do {
            socket = try UDPSocket.bind(host: configuration.listenHost, port: configuration.listenPort,
                                        receiveBufferBytes: 4 << 20, on: loop) { bytes, source in
                box.port?.receive(bytes, from: source)
            }
        } catch {
            throw WebRTCServerError(.setup, "cannot open the WebRTC UDP port: \(error)")
        }
        box.port = self
    }

    private final class WeakBox {
        weak var port: ServerPort?
    }

    private var now: Duration { ContinuousClock.now - origin }

    // MARK: - Signalling

    /// Answers a WHIP offer: a new session in the table, or why not.
    func open(offer: String, app: String,
              streamTag: String?) -> Result<(id: String, answer: String), WebRTCServerError> {
        let stream = streamTag.map { app + "/" + $0 }
        // The same key publishing again (a client reconnecting before its old session expired, which it may not
        // DELETE after losing its network): the new session replaces the old once its offer is answered, since
        // both would feed the same LL-HLS stream. An RTMP publisher in that place is refused instead, but a WHIP
        // client would have no way back for the 30 s its old session's consent lasts.
        let replaced = stream.flatMap { serialByStream[$0] }.flatMap { sessions[$0] }
        guard routes.sessionCount < routes.maximumSessions || replaced != nil else { return .failure(full()) }
        let ufrag = token(8)
        let pwd = token(24)
        let candidate = SDPCandidate(foundation: "1", priority: ICECandidate.priority(kind: .host,
                                                                                      localPreference: 65535),
                                     address: candidateHost, port: socket.localPort, kind: .host)
        let answer: ServerAnswer
        do {
            answer = try ServerAnswer(offer: offer, configuration: .init(
                direction: .receive, sessionID: random.next() >> 2, iceUfrag: ufrag, icePwd: pwd,
                fingerprint: fingerprint, candidate: candidate))
        } catch {
            let code: WebRTCServerError.Code = error.code == .unsupported ? .unsupportedOffer : .badOffer
            return .failure(WebRTCServerError(code, "the SDP offer cannot be answered: \(error.message)"))
        }
        let dtls: DTLSEndpoint
        do {
            dtls = try DTLSEndpoint(certificate: certificate, role: .server,
                                    remoteFingerprints: answer.remoteFingerprints.map { ($0.algorithm, $0.digest) })
        } catch {
            return .failure(WebRTCServerError(.setup, "cannot set up DTLS for the session: \(error)"))
        }
        if let replaced {
            end(replaced, reason: "replaced by a new WHIP session with the same key", notify: true, replaced: true)
        }
        let serial = nextSerial
        switch routes.add(serial, localUfrag: ufrag) {
        case .added: break
        case .full: return .failure(full())
        case .ufragInUse, .duplicate:
            // 8 random characters of 62 collide about once in 10^14 draws: ask the client to try again.
            return .failure(WebRTCServerError(.full, "the server drew a session name in use: try again",
                                              retryAfter: 1))
        }
        nextSerial += 1
        if let stream {
            serialByStream[stream] = serial
            // Players of a replaced session wait for this one's media (a 404 for new ones until it connects).
            forwarding[stream]?.publisher = serial
        }
        let id = hexToken(16)
        let responder = ICELiteResponder(
            credentials: .init(localUfrag: ufrag, localPwd: pwd, remoteUfrag: answer.remoteUfrag), now: now,
            connectTimeout: configuration.connectTimeout, consentTimeout: configuration.consentTimeout)
        let peer = ServerPeer(serial: serial, id: id, app: app, streamTag: streamTag,
                              answer: answer, responder: responder, dtls: dtls,
                              clock: ServerSessionClock(now: now, handshakeTimeout: configuration.handshakeTimeout),
                              keyframeInterval: configuration.keyframeInterval)
        sessions[serial] = peer
        serialByID[id] = serial
        rearm(peer)
        emit(.opened(serial: serial, app: app, video: answer.video?.profileDescription, audio: answer.audio != nil))
        return .success((id, answer.text))
    }

    /// Answers a WHEP offer for the publish at `app` and `streamTag`: a new player in the table, or why not.
    func play(offer: String, app: String,
              streamTag: String) -> Result<(id: String, answer: String), WebRTCServerError> {
        let stream = app + "/" + streamTag
        guard let forward = forwarding[stream] else {
            return .failure(WebRTCServerError(.notFound, "nothing is publishing at this address now"))
        }
        let profile: String?
        if let rtmp = forward.rtmp {
            if let refusal = rtmp.refusal { return .failure(WebRTCServerError(.unsupportedOffer, refusal)) }
            profile = rtmp.profileLevelID
        } else if let serial = forward.publisher, let publisher = sessions[serial], publisher.counters.connected,
                  publisher.answer.video != nil {
            profile = publisher.answer.video?.profileLevelID
        } else {
            return .failure(WebRTCServerError(.notFound, "nothing is publishing at this address now"))
        }
        guard routes.sessionCount < routes.maximumSessions else { return .failure(full()) }
        guard sessions.values.count(where: { $0.subscription != nil }) < configuration.maximumPlayers else {
            refusedFull += 1
            return .failure(WebRTCServerError(.full, "the server has \(configuration.maximumPlayers) WHEP players, its "
                + "limit: try again later", retryAfter: 5))
        }
        let ufrag = token(8)
        let pwd = token(24)
        let candidate = SDPCandidate(foundation: "1", priority: ICECandidate.priority(kind: .host,
                                                                                      localPreference: 65535),
                                     address: candidateHost, port: socket.localPort, kind: .host)
        let videoSSRC = UInt32.random(in: 1...UInt32.max, using: &random)
        let audioSSRC = UInt32.random(in: 1...UInt32.max, using: &random)
        let answer: ServerAnswer
        do {
            answer = try ServerAnswer(offer: offer, configuration: .init(
                direction: .send, sessionID: random.next() >> 2, iceUfrag: ufrag, icePwd: pwd,
                fingerprint: fingerprint, candidate: candidate, videoSSRC: videoSSRC, audioSSRC: audioSSRC,
                preferredProfileLevelID: profile))
        } catch {
            let code: WebRTCServerError.Code = error.code == .unsupported ? .unsupportedOffer : .badOffer
            return .failure(WebRTCServerError(code, "the SDP offer cannot be answered: \(error.message)"))
        }
        guard let video = answer.video else {
            return .failure(WebRTCServerError(.unsupportedOffer, "the offer has no H.264 in packetization mode 1, "
                + "which is what this publish sends"))
        }
        let dtls: DTLSEndpoint
        do {
            dtls = try DTLSEndpoint(certificate: certificate, role: .server,
                                    remoteFingerprints: answer.remoteFingerprints.map { ($0.algorithm, $0.digest) })
        } catch {
            return .failure(WebRTCServerError(.setup, "cannot set up DTLS for the session: \(error)"))
        }
        let serial = nextSerial
        switch routes.add(serial, localUfrag: ufrag) {
        case .added: break
        case .full: return .failure(full())
        case .ufragInUse, .duplicate:
            return .failure(WebRTCServerError(.full, "the server drew a session name in use: try again",
                                              retryAfter: 1))
        }
        nextSerial += 1
        let id = hexToken(16)
        let responder = ICELiteResponder(
            credentials: .init(localUfrag: ufrag, localPwd: pwd, remoteUfrag: answer.remoteUfrag), now: now,
            connectTimeout: configuration.connectTimeout, consentTimeout: configuration.consentTimeout)
        let peer = ServerPeer(serial: serial, id: id, app: app, streamTag: nil,
                              answer: answer, responder: responder, dtls: dtls,
                              clock: ServerSessionClock(now: now, handshakeTimeout: configuration.handshakeTimeout),
                              keyframeInterval: nil)
        peer.counters.playback = true
        peer.subscription = Subscription(
            stream: stream,
            video: RTPRewriter(ssrc: videoSSRC, payloadType: video.payloadType, clockRate: 90000,
                               firstSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                               firstTimestamp: UInt32.random(in: 0...UInt32.max, using: &random)),
            audio: answer.audio.map { audio in
                RTPRewriter(ssrc: audioSSRC, payloadType: audio.payloadType, clockRate: 48000,
                            firstSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                            firstTimestamp: UInt32.random(in: 0...UInt32.max, using: &random))
            })
        sessions[serial] = peer
        serialByID[id] = serial
        forward.subscribers.append(serial)
        rearm(peer)
        emit(.opened(serial: serial, app: app, video: video.profileDescription, audio: answer.audio != nil,
                     playback: true))
        return .success((id, answer.text))
    }

    /// Moves a player to the publish at `app` and `streamTag` (a show's main picture switched tiles): it plays on
    /// until that publish's next keyframe (a PLI asks for one), so its picture never stops; one that plays nothing
    /// yet starts at that publish's last keyframe, as a late joiner does. Its rewriter carries its SSRC, sequence
    /// numbers and timestamps across. False when the player or that publish is gone.
    func follow(id: String, app: String, streamTag: String) -> Bool {
        let stream = app + "/" + streamTag
        guard let serial = serialByID[id], let peer = sessions[serial], peer.counters.app == app,
              let subscription = peer.subscription, let target = forwarding[stream]
        else { return false }
        cancelSwitch(serial, subscription)
        guard subscription.stream != stream else { return true }
        if peer.outbound != nil, !subscription.waitingForKeyframe, forwarding[subscription.stream] != nil {
            subscription.next = (stream, now)
            target.joining.append(serial)
            requestUpstreamKeyframe(target)
        } else {
            move(peer, subscription, to: stream, target)
        }
        return true
    }

    /// Moves a player to `target` (the stream `stream`) at once: it starts at that stream's last keyframe.
    private func move(_ peer: ServerPeer, _ subscription: Subscription, to stream: String,
                      _ target: ForwardedStream) {
        cancelSwitch(peer.serial, subscription)
        forwarding[subscription.stream]?.subscribers.removeAll { $0 == peer.serial }
        subscription.stream = stream
        subscription.waitingForKeyframe = true
        target.subscribers.append(peer.serial)
        if peer.outbound != nil { playStarted(peer) }
    }

    /// Forgets a player's pending switch (it follows another picture, or ended).
    private func cancelSwitch(_ serial: Int, _ subscription: Subscription) {
        guard let next = subscription.next else { return }
        forwarding[next.stream]?.joining.removeAll { $0 == serial }
        subscription.next = nil
    }

    /// A stream's publish is over: its players end with `reason`, but one switching to another picture moves
    /// there at once; players waiting to switch to it stay where they are.
    private func endPlayers(of forward: ForwardedStream, reason: String) {
        for serial in forward.joining { sessions[serial]?.subscription?.next = nil }
        forward.joining.removeAll()
        for serial in forward.subscribers {
            guard let player = sessions[serial] else { continue }
            if let subscription = player.subscription, let next = subscription.next,
               let target = forwarding[next.stream], target !== forward {
                move(player, subscription, to: next.stream, target)
            } else {
                end(player, reason: reason, notify: true)
            }
        }
        forward.subscribers.removeAll()
    }

    /// Ends the WHIP session `id` of `app` whose picture a newer session (media tag `streamTag`) now publishes:
    /// its WHEP players move to that session's stream first, waiting for its first keyframe, so they stay (a show's
    /// picture published again from the host's page after its path was lost). False when there is no such session.
    func handOver(id: String, app: String, to streamTag: String, reason: String) -> Bool {
        guard let serial = serialByID[id], let peer = sessions[serial], peer.counters.app == app,
              !peer.counters.playback, let oldTag = peer.streamTag else { return false }
        let old = app + "/" + oldTag
        let new = app + "/" + streamTag
        if old != new, let forward = forwarding[old], forward.publisher == serial, !forward.subscribers.isEmpty {
            let target = forwarding[new] ?? ForwardedStream(publisher: serialByStream[new])
            forwarding[new] = target
            for subscriber in forward.subscribers {
                guard let subscription = sessions[subscriber]?.subscription else { continue }
                subscription.stream = new
                subscription.waitingForKeyframe = true
                target.subscribers.append(subscriber)
            }
            forward.subscribers.removeAll()
        }
        if old != new, let forward = forwarding[old], forward.publisher == serial, !forward.joining.isEmpty {
            let target = forwarding[new] ?? ForwardedStream(publisher: serialByStream[new])
            forwarding[new] = target
            for joiner in forward.joining {
                guard let subscription = sessions[joiner]?.subscription else { continue }
                subscription.next = (new, subscription.next?.since ?? now)
                target.joining.append(joiner)
            }
            forward.joining.removeAll()
        }
        end(peer, reason: reason, notify: true)
        return true
    }

    /// Ends the session a DELETE names; false when there is none (it ended, or the id is wrong, or names a session
    /// of the other kind).
    func close(id: String, app: String, playback: Bool = false,
               reason: String = "closed by the client (DELETE)") -> Bool {
        guard let serial = serialByID[id], let peer = sessions[serial], peer.counters.app == app,
              peer.counters.playback == playback else { return false }
        end(peer, reason: reason, notify: true)
        return true
    }

    /// The counters.
    var statistics: WebRTCServerStatistics {
        var drops: [String: Int] = [:]
        for (reason, count) in routes.drops { drops[reason.rawValue] = count }
        return WebRTCServerStatistics(port: port, sessions: sessions.keys.sorted().compactMap { serial in
            sessions[serial].map { peer in
                var counters = peer.counters
                counters.checksAnswered = peer.responder.checksAnswered
                return counters
            }
        }, drops: drops, refusedFull: refusedFull)
    }

    /// Ends every session and closes the socket.
    func stop() {
        for peer in Array(sessions.values) { end(peer, reason: "the server stopped", notify: true) }
        socket.close()
    }

    // MARK: - Datagrams

    private func receive(_ bytes: [UInt8], from source: TransportAddress) {
        switch routes.route(bytes, from: source) {
        case .drop:
            return  // counted by the routes
        case .stun(let serial):
            guard let peer = sessions[serial] else { return }
            stun(bytes, from: source, peer)
        case .dtls(let serial):
            guard let peer = sessions[serial] else { return }
            dtls(bytes, from: source, peer)
        case .rtp(let serial):
            guard let peer = sessions[serial] else { return }
            media(bytes, peer)
        case .rtcp(let serial):
            guard let peer = sessions[serial] else { return }
            guard let inbound = peer.inbound, let rtcp = try? inbound.unprotect(rtcp: bytes) else {
                peer.counters.unprotectFailures += 1
                return
            }
            peer.counters.rtcpPackets += 1
            if peer.subscription != nil { feedback(rtcp, from: peer) } else { senderReports(rtcp, from: peer) }
        }
    }

    private func stun(_ bytes: [UInt8], from source: TransportAddress, _ peer: ServerPeer) {
        switch peer.responder.receive(bytes, from: source, now: now) {
        case .answer(let response, let destination, let selects):
            socket.send(response, to: destination)
            routes.bind(destination, to: peer.serial)
            if selects { peer.counters.remote = destination }
            rearm(peer)
        case .refuse(let response, let destination, _):
            socket.send(response, to: destination)
        case .drop:
            break
        }
    }

    private func dtls(_ bytes: [UInt8], from source: TransportAddress, _ peer: ServerPeer) {
        peer.dtlsRemote = source
        let output: DTLSEndpoint.Output
        do {
            output = try peer.dtls.receive(bytes)
        } catch {
            end(peer, reason: "DTLS failed: \(error)", notify: false)
            return
        }
        for datagram in output.datagrams { socket.send(datagram, to: source) }
        peer.clock.dtlsTimer(peer.dtls.timeout, now: now)
        if let keys = output.keys {
            peer.clock.dtlsConnected()
            do {
                peer.inbound = try SRTPSession(masterKey: keys.remoteKey, direction: .inbound)
                peer.outbound = try SRTPSession(masterKey: keys.localKey, direction: .outbound)
            } catch {
                end(peer, reason: "SRTP failed: \(error)", notify: true)
                return
            }
            peer.counters.connected = true
            if peer.counters.remote == nil { peer.counters.remote = source }
            emit(.connected(peer.counters))
            // The publish starts as an RTMP one does, before its first frame: its LL-HLS address is printed, and
            // the key counts as publishing.
            if let onMedia, let tag = peer.streamTag {
                peer.mediaStarted = true
                onMedia(.started(app: peer.counters.app, streamTag: tag))
                #if os(Linux)
                // Before any video: the LL-HLS packager's first init segment then has the audio track.
                if peer.answer.audio != nil {
                    onMedia(.tag(app: peer.counters.app, streamTag: tag, WHIPAudioTags.sequenceHeader))
                }
                #endif
            }
            if let tag = peer.streamTag {
                publishStarted(peer, stream: peer.counters.app + "/" + tag)
            }
            if peer.subscription != nil { playStarted(peer) }
        }
        if output.closed {
            end(peer, reason: "the client closed DTLS (close_notify)", notify: false)
            return
        }
        rearm(peer)
    }

    private func media(_ bytes: [UInt8], _ peer: ServerPeer) {
        guard peer.subscription == nil else {
            peer.counters.otherPackets += 1  // a WHEP player sends no media (its offer is recvonly)
            return
        }
        guard let inbound = peer.inbound, let packet = try? inbound.unprotect(rtp: bytes),
              packet.count >= RTPPacket.headerSize else {
            peer.counters.unprotectFailures += 1
            return
        }
        // BUNDLE without a MID header extension: the payload type (unique per section) names the track.
        let payloadType = packet[1] & 0x7f
        if payloadType == peer.answer.video?.payloadType {
            peer.counters.videoPackets += 1
            observe(packet, in: &peer.videoReception, clockRate: 90_000)
            recoverLosses(packet, peer)
            if let forward = forwardedStream(of: peer) { forwardVideo(packet, forward) }
            if peer.streamTag != nil { video(packet, peer) }
        } else if payloadType == peer.answer.audio?.payloadType {
            peer.counters.audioPackets += 1
            observe(packet, in: &peer.audioReception, clockRate: 48_000)
            if let forward = forwardedStream(of: peer) { forwardAudio(packet, forward) }
            if peer.streamTag != nil { audio(packet, peer) }
        } else {
            peer.counters.otherPackets += 1
            return
        }
        peer.counters.mediaBytes += packet.count - RTPPacket.headerSize
        reportReception(peer)
        if !peer.receiving, peer.answer.video == nil || peer.counters.videoPackets > 0,
           peer.answer.audio == nil || peer.counters.audioPackets > 0 {
            peer.receiving = true
            emit(.receiving(peer.counters))
        }
    }

    /// Asks a publisher again for the video packets that did not come (generic NACK, RFC 4585 §6.2.1): what
    /// comes then goes to the players (whose NACKs the cache could not answer) and into the frames for LL-HLS,
    /// where a loss would otherwise cost a keyframe. The request rides an empty receiver report, as a PLI does.
    private func recoverLosses(_ packet: [UInt8], _ peer: ServerPeer) {
        peer.losses.observe(RTPPacket.sequenceNumber(of: packet))
        peer.counters.packetsRecovered = peer.losses.recovered
        let lost = peer.losses.due(now: now)
        guard !lost.isEmpty, let outbound = peer.outbound, let remote = Self.mediaDestination(of: peer) else { return }
        let compound = RTCPPacket.receiverReport(ssrc: peer.localSSRC, reports: []).encoded
            + RTCPPacket.nack(senderSSRC: peer.localSSRC, mediaSSRC: RTPPacket.ssrc(of: packet), lost: lost).encoded
        guard let protected = try? outbound.protect(rtcp: compound) else { return }
        socket.send(protected, to: remote)
        peer.counters.packetsRequested += lost.count
    }

    private func observe(_ packet: [UInt8], in reception: inout RTPReceptionStatistics?, clockRate: Int) {
        let ssrc = RTPPacket.ssrc(of: packet)
        if reception?.ssrc != ssrc { reception = RTPReceptionStatistics(ssrc: ssrc, clockRate: clockRate) }
        reception?.observe(sequence: RTPPacket.sequenceNumber(of: packet), timestamp: RTPPacket.timestamp(of: packet),
                           arrival: now)
    }

    /// A publisher's sender reports: their times go back in our receiver reports, for its round trip.
    private func senderReports(_ rtcp: [UInt8], from peer: ServerPeer) {
        guard let packets = try? RTCPPacket.decodeCompound(rtcp) else { return }
        for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets {
            if peer.videoReception?.ssrc == ssrc { peer.videoReception?.senderReport(ntpTimestamp: ntp, arrival: now) }
            if peer.audioReception?.ssrc == ssrc { peer.audioReception?.senderReport(ntpTimestamp: ntp, arrival: now) }
        }
    }

    /// Every second of a publish, a receiver report (RFC 3550 §6.4.2: loss, jitter, the last sender report) of its
    /// video and audio, and, where the answer said `goog-remb`, the most it should send
    /// (``WebRTCServer/Configuration/publisherMaximumBitrate``). Without them a browser's loss-based estimate never
    /// rises from its start (Chrome: 300 kbit/s), and a keyframe takes its pacer a third of a second.
    private func reportReception(_ peer: ServerPeer) {
        let current = now
        if let last = peer.lastReceiverReport, current - last < .seconds(1) { return }
        guard let outbound = peer.outbound, let remote = Self.mediaDestination(of: peer) else { return }
        peer.lastReceiverReport = current
        var blocks: [RTCPReportBlock] = []
        if var video = peer.videoReception {
            blocks.append(video.report(now: current))
            peer.videoReception = video
        }
        if var audio = peer.audioReception {
            blocks.append(audio.report(now: current))
            peer.audioReception = audio
        }
        var compound = RTCPPacket.receiverReport(ssrc: peer.localSSRC, reports: blocks).encoded
        if peer.answer.video?.feedback.contains(ServerAnswer.receiverEstimate) == true,
           let ssrc = peer.videoReception?.ssrc {
            compound += RTCPPacket.estimatedMaximumBitrate(
                senderSSRC: peer.localSSRC, bitsPerSecond: UInt64(configuration.publisherMaximumBitrate),
                ssrcs: [ssrc]).encoded
        }
        guard let protected = try? outbound.protect(rtcp: compound) else { return }
        socket.send(protected, to: remote)
        peer.counters.receiverReports += 1
    }

    /// Rebuilds frames and passes them on as FLV tags (for LL-HLS), when the session has a media tag: in sequence
    /// order, a packet after a gap held up to 200 ms for the retransmission ``recoverLosses`` asked for.
    private func video(_ packet: [UInt8], _ peer: ServerPeer) {
        guard let onMedia, let tag = peer.streamTag, let decoded = try? RTPPacket(decoding: packet) else { return }
        let app = peer.counters.app
        for packet in peer.ordered.push(decoded, now: now) {
            for frame in peer.frames.push(packet) {
                let tags = peer.videoTags.tags(for: frame)
                guard !tags.isEmpty else { continue }
                peer.counters.videoFrames += 1
                if peer.videoStart == nil { peer.videoStart = now }
                if frame.isKeyframe { peer.lastKeyframe = now }
                for flv in tags { onMedia(.tag(app: app, streamTag: tag, flv)) }
            }
        }
        peer.counters.packetsSkipped = peer.ordered.skipped
        peer.counters.framesDropped = peer.frames.droppedFrames + peer.videoTags.droppedBeforeConfiguration
        if peer.keyframeRequests.shouldRequest(waiting: peer.frames.needsKeyframe, lastKeyframe: peer.lastKeyframe,
                                               now: now) {
            requestKeyframe(from: decoded.ssrc, peer)
        }
    }

    /// Transcodes Opus to AAC tags (for LL-HLS), when the session has a media tag. On the loop: a 20 ms packet costs
    /// tens of microseconds to decode and a 1024-sample AAC frame about as much to encode.
    private func audio(_ packet: [UInt8], _ peer: ServerPeer) {
        #if os(Linux)
        guard let onMedia, let tag = peer.streamTag, !peer.audioFailed,
              let decoded = try? RTPPacket(decoding: packet) else { return }
        if peer.audioTags == nil {
            guard let transcode = try? WHIPAudioTags() else {
                peer.audioFailed = true
                return
            }
            peer.audioTags = transcode
        }
        guard let transcode = peer.audioTags else { return }
        let tags = transcode.tags(for: decoded, sinceVideoStart: peer.videoStart.map { now - $0 })
        for flv in tags { onMedia(.tag(app: peer.counters.app, streamTag: tag, flv)) }
        peer.counters.audioFrames = transcode.frames
        #endif
    }

    /// Sends a PLI (RFC 4585 §6.3.1) in a compound packet led by an empty receiver report (RFC 3550 §6.1; no
    /// reduced-size RTCP was negotiated).
    private func requestKeyframe(from mediaSSRC: UInt32, _ peer: ServerPeer) {
        guard let outbound = peer.outbound, let remote = Self.mediaDestination(of: peer) else { return }
        let compound = RTCPPacket.receiverReport(ssrc: peer.localSSRC, reports: []).encoded
            + RTCPPacket.pictureLossIndication(senderSSRC: peer.localSSRC, mediaSSRC: mediaSSRC).encoded
        guard let protected = try? outbound.protect(rtcp: compound) else { return }
        socket.send(protected, to: remote)
        peer.counters.keyframeRequests += 1
    }

    // MARK: - WHEP forwarding

    /// What the players of a publisher get, when it is the stream's current publisher.
    private func forwardedStream(of peer: ServerPeer) -> ForwardedStream? {
        guard let tag = peer.streamTag, let forward = forwarding[peer.counters.app + "/" + tag],
              forward.publisher == peer.serial else { return nil }
        return forward
    }

    /// An RTMP publish started: its H.264 may be played over WHEP, made RTP.
    func rtmpStarted(app: String, streamTag: String) {
        let stream = app + "/" + streamTag
        guard forwarding[stream] == nil else { return }  // a WHIP publish with the key (refused by the ingest)
        forwarding[stream] = ForwardedStream(
            publisher: nil, rtmp: RTMPVideoPackets(ssrc: UInt32.random(in: 1...UInt32.max, using: &random),
                                                   firstSequence: UInt16.random(in: 0...UInt16.max, using: &random)))
    }

    /// One FLV tag of an RTMP publish: its video packets go to the players as a WHIP publisher's do, its AAC (made
    /// Opus) to the players that take audio.
    func rtmpTag(app: String, streamTag: String, _ tag: FLVTag) {
        guard let forward = forwarding[app + "/" + streamTag], forward.rtmp != nil else { return }
        if tag.type == .audio {
            rtmpAudio(tag, forward)
            return
        }
        guard tag.type == .video else { return }
        let packets = forward.rtmp?.packets(for: tag) ?? []
        if let refusal = forward.rtmp?.refusal, !forward.subscribers.isEmpty {
            endPlayers(of: forward, reason: refusal)
        }
        for packet in packets { forwardVideo(packet, forward) }
    }

    /// An RTMP publish's audio tag: the sequence header is kept; a frame is transcoded to Opus only while a player
    /// takes audio (the transcoder opens with the first such player and closes with the last).
    private func rtmpAudio(_ tag: FLVTag, _ forward: ForwardedStream) {
        let isHeader = tag.body.count >= 2 && tag.body[1] == 0  // AAC packet type 0: the AudioSpecificConfig
        if isHeader { forward.audioSequenceHeader = tag }
        #if os(Linux)
        let listening = forward.subscribers.contains { sessions[$0]?.subscription?.audio != nil }
        guard listening else {
            forward.rtmpAudio = nil
            return
        }
        if forward.rtmpAudio == nil {
            guard let header = forward.audioSequenceHeader else { return }
            let transcode = RTMPAudioPackets(ssrc: UInt32.random(in: 1...UInt32.max, using: &random),
                                             firstSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                                             firstTimestamp: UInt32.random(in: 0...UInt32.max, using: &random))
            _ = transcode.packets(for: header)
            forward.rtmpAudio = transcode
            if isHeader { return }
        }
        for packet in forward.rtmpAudio?.packets(for: tag) ?? [] { forwardAudio(packet, forward) }
        #endif
    }

    /// An RTMP publish ended: so does its playback.
    func rtmpStopped(app: String, streamTag: String) {
        let stream = app + "/" + streamTag
        guard let forward = forwarding[stream], forward.rtmp != nil else { return }
        forwarding[stream] = nil
        endPlayers(of: forward, reason: "the publish ended")
    }

    /// A publisher connected: its stream may be played. A replacement's players stay, and the keyframe and packets
    /// of the session before are forgotten (its sequence numbers were another's).
    private func publishStarted(_ peer: ServerPeer, stream: String) {
        guard serialByStream[stream] == peer.serial else { return }
        if let forward = forwarding[stream] {
            forward.publisher = peer.serial
            forward.cache.removeAll()
            forward.gate.reset()
            forward.videoSSRC = nil
            forward.lastUpstreamRequest = nil
            for serial in forward.subscribers { sessions[serial]?.subscription?.waitingForKeyframe = true }
            requestUpstreamKeyframe(forward)
        } else {
            forwarding[stream] = ForwardedStream(publisher: peer.serial)
        }
    }

    /// A player connected: it starts at the publisher's last keyframe, at once, and the publisher is asked for a
    /// new one (its picture after that keyframe refers to frames the player never got).
    private func playStarted(_ peer: ServerPeer) {
        guard let subscription = peer.subscription, let forward = forwarding[subscription.stream] else { return }
        let keyframe = forward.gate.keyframe
        if !keyframe.isEmpty, keyframe.allSatisfy({ sendVideo($0, to: peer, subscription) }) {
            // What follows continues the sequence numbers without the packets between that keyframe and now, and
            // its timestamps from that keyframe's as sent now (it was up to a keyframe interval old).
            subscription.video.skip(retime: true)
            subscription.waitingForKeyframe = false
        }
        requestUpstreamKeyframe(forward)
    }

    /// Passes a publisher's H.264 packet (unprotected) to its players, each with its own header.
    private func forwardVideo(_ packet: [UInt8], _ forward: ForwardedStream) {
        let begins = forward.gate.observe(packet)
        forward.cache.insert(packet, sequence: RTPPacket.sequenceNumber(of: packet), now: now)
        forward.videoSSRC = RTPPacket.ssrc(of: packet)
        if begins, !forward.joining.isEmpty { switchHere(forward) }
        for serial in forward.subscribers {
            guard let player = sessions[serial], let subscription = player.subscription, player.outbound != nil
            else { continue }
            if let next = subscription.next, now - next.since > WebRTCServer.switchBound,
               let target = forwarding[next.stream] {
                // The new picture sent no keyframe in time (an RTMP publish's own interval is longer).
                move(player, subscription, to: next.stream, target)
                continue
            }
            if subscription.waitingForKeyframe {
                guard begins else { continue }
                subscription.waitingForKeyframe = false
                subscription.video.skip()
            }
            if !sendVideo(packet, to: player, subscription) {
                // Behind (the socket's buffer is full): rather than queue, skip to the next keyframe.
                subscription.waitingForKeyframe = true
                player.counters.keyframeSkips += 1
                requestUpstreamKeyframe(forward)
            }
        }
    }

    /// A keyframe of `forward` begins: the players switching to it leave their old picture here, and this keyframe
    /// is their first packet of the new one.
    private func switchHere(_ forward: ForwardedStream) {
        for serial in forward.joining {
            guard let subscription = sessions[serial]?.subscription, let next = subscription.next,
                  forwarding[next.stream] === forward else { continue }
            forwarding[subscription.stream]?.subscribers.removeAll { $0 == serial }
            subscription.stream = next.stream
            subscription.next = nil
            subscription.waitingForKeyframe = true
            forward.subscribers.append(serial)
        }
        forward.joining.removeAll()
    }

    /// Passes a publisher's Opus packet to its players whose offers had Opus.
    private func forwardAudio(_ packet: [UInt8], _ forward: ForwardedStream) {
        for serial in forward.subscribers {
            guard let player = sessions[serial], let subscription = player.subscription,
                  let outbound = player.outbound, let remote = Self.mediaDestination(of: player),
                  let rewritten = subscription.audio?.rewrite(packet, now: now),
                  let protected = try? outbound.protect(rtp: rewritten) else { continue }
            if socket.send(protected, to: remote) { player.counters.audioPackets += 1 }
        }
    }

    /// Where a session's media goes: the nominated pair's address, or until a nomination (a browser nominates
    /// after its checks, and DTLS may finish first), the address DTLS came from, which a check had proved (the
    /// routes let no datagram of an unproved address reach the session).
    private static func mediaDestination(of peer: ServerPeer) -> TransportAddress? {
        peer.responder.selectedAddress ?? peer.dtlsRemote
    }

    /// Rewrites, protects and sends one H.264 packet to a player; false when it could not be sent.
    private func sendVideo(_ packet: [UInt8], to player: ServerPeer, _ subscription: Subscription) -> Bool {
        guard let outbound = player.outbound, let remote = Self.mediaDestination(of: player),
              let rewritten = subscription.video.rewrite(packet, now: now),
              let protected = try? outbound.protect(rtp: rewritten) else { return false }
        guard socket.send(protected, to: remote) else { return false }
        player.counters.videoPackets += 1
        return true
    }

    /// A player's RTCP: NACKs answered from the publisher's packet cache, PLI and FIR passed to the publisher.
    private func feedback(_ rtcp: [UInt8], from player: ServerPeer) {
        guard let subscription = player.subscription, let forward = forwarding[subscription.stream],
              let packets = try? RTCPPacket.decodeCompound(rtcp) else { return }
        for packet in packets {
            switch packet {
            case .nack(_, let mediaSSRC, let lost) where mediaSSRC == subscription.video.ssrc:
                for sequence in lost {
                    guard let source = subscription.video.sourceSequence(of: sequence),
                          let cached = forward.cache.packet(source, now: now) else { continue }
                    if sendVideo(cached, to: player, subscription) { player.counters.packetsResent += 1 }
                }
            case .pictureLossIndication, .fullIntraRequest:
                player.counters.keyframeRequests += 1
                requestUpstreamKeyframe(forward)
            default:
                break
            }
        }
    }

    /// Asks the publisher for a keyframe for its players: at most one PLI per 500 ms per publisher, however many
    /// players ask.
    private func requestUpstreamKeyframe(_ forward: ForwardedStream) {
        let current = now
        if let last = forward.lastUpstreamRequest, current - last < WebRTCServer.upstreamRequestInterval { return }
        guard let serial = forward.publisher, let publisher = sessions[serial], let ssrc = forward.videoSSRC
        else { return }  // an RTMP publisher cannot be asked: its own keyframe interval holds
        forward.lastUpstreamRequest = current
        requestKeyframe(from: ssrc, publisher)
    }

    // MARK: - Time

    /// Keeps one loop timer per session at its earliest deadline. Media packets never move a deadline (only
    /// checks and DTLS do), so the per-packet path never touches the timer heap.
    private func rearm(_ peer: ServerPeer) {
        let current = now
        guard let deadline = peer.clock.nextDeadline(responder: peer.responder) else {
            peer.timer?.cancel()
            peer.timer = nil
            peer.timerDeadline = nil
            return
        }
        if let armed = peer.timerDeadline, armed <= deadline, peer.timer != nil { return }
        peer.timer?.cancel()
        peer.timerDeadline = deadline
        let serial = peer.serial
        peer.timer = loop.scheduleOnLoop(after: max(deadline - current, .zero)) { [weak self] in
            self?.tick(serial)
        }
    }

    private func tick(_ serial: Int) {
        guard let peer = sessions[serial] else { return }
        peer.timer = nil
        peer.timerDeadline = nil
        let current = now
        switch peer.clock.tick(responder: &peer.responder, now: current) {
        case .expired(.notConnected):
            end(peer, reason: "no ICE check nominated a path within \(configuration.connectTimeout)", notify: false)
            return
        case .expired(.consentLost(let last)):
            end(peer, reason: "consent lost: no check for \(current - last) (RFC 7675)", notify: false)
            return
        case .expired(.closed):
            end(peer, reason: "closed", notify: false)
            return
        case .handshakeTimedOut:
            end(peer, reason: "DTLS did not complete within \(configuration.handshakeTimeout)", notify: false)
            return
        case .retransmitDTLS:
            if let remote = peer.dtlsRemote {
                do {
                    for datagram in try peer.dtls.handleTimeout().datagrams { socket.send(datagram, to: remote) }
                } catch {
                    end(peer, reason: "\(error)", notify: false)
                    return
                }
            }
            peer.clock.dtlsTimer(peer.dtls.timeout, now: current)
        case nil:
            break
        }
        rearm(peer)
    }

    /// Removes a session from the table and the routes, and frees its DTLS and SRTP state.
    private func end(_ peer: ServerPeer, reason: String, notify: Bool, replaced: Bool = false) {
        guard sessions.removeValue(forKey: peer.serial) != nil else { return }
        serialByID[peer.id] = nil
        if let tag = peer.streamTag, serialByStream[peer.counters.app + "/" + tag] == peer.serial {
            serialByStream[peer.counters.app + "/" + tag] = nil
        }
        if let subscription = peer.subscription {
            forwarding[subscription.stream]?.subscribers.removeAll { $0 == peer.serial }
            cancelSwitch(peer.serial, subscription)
        } else if let tag = peer.streamTag, !replaced {
            // The publish is over: so is its playback (a replacement keeps its players, whose rewriters carry them
            // across to the new session's media).
            let stream = peer.counters.app + "/" + tag
            if let forward = forwarding[stream], forward.publisher == peer.serial {
                forwarding[stream] = nil
                endPlayers(of: forward, reason: "the publish ended")
            }
        }
        peer.timer?.cancel()
        peer.timer = nil
        if notify, peer.dtls.isConnected, let remote = peer.responder.selectedAddress ?? peer.dtlsRemote {
            for datagram in peer.dtls.close() { socket.send(datagram, to: remote) }
        }
        peer.responder.close()
        routes.remove(peer.serial)
        if peer.mediaStarted, let onMedia, let tag = peer.streamTag {
            onMedia(.stopped(app: peer.counters.app, streamTag: tag))
        }
        var counters = peer.counters
        counters.checksAnswered = peer.responder.checksAnswered
        emit(.ended(counters, reason: reason))
        trim.connectionClosed(on: loop)
    }

    private func full() -> WebRTCServerError {
        refusedFull += 1
        return WebRTCServerError(.full, "the server has \(routes.maximumSessions) WebRTC sessions open, its "
            + "limit: try again later", retryAfter: 5)
    }

    // MARK: - Random names

    private static let iceCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// ICE credentials (RFC 8839 §5.4: ice-char is ALPHA / DIGIT / "+" / "/").
    private func token(_ count: Int) -> String {
        String((0..<count).map { _ in Self.iceCharacters.randomElement(using: &random)! })
    }

    /// `bytes` random bytes as lower-case hex: the Location's unguessable id (128 bits for 16).
    private func hexToken(_ bytes: Int) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &random)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}
