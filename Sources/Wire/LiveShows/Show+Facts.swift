import LiveProtocol

extension Show {
    /// Applies a fact: this node's write committed (through ``committed(_:_:now:)``), or another node's.
    /// Facts already applied (a chat sequence number not above the show's) change nothing.
    /// - Returns: the events for sessions and the ingest.
    public mutating func apply(_ fact: StoreFact, now: Int64) -> [ShowEffect] {
        var effects: [ShowEffect] = []
        switch fact {
        case .message(let message):
            if chat.append(message) { effects.append(.broadcast(.event(.message(message)))) }
        case .deleted(let id, let seq):
            guard chat.delete(id, seq: seq) else { break }
            effects.append(.broadcast(.event(.deleted(id: id, seq: seq))))
            if pinned?.id == id {
                pinned = nil
                effects.append(.broadcast(.event(.pinned(nil))))
            }
        case .cleared(let seq):
            if chat.clear(seq: seq) { effects.append(.broadcast(.event(.cleared(seq: seq)))) }
            // The pin goes with the chat it was in: the store cleared it in the same write.
            if pinned != nil {
                pinned = nil
                effects.append(.broadcast(.event(.pinned(nil))))
            }
        case .pinned(let message):
            guard pinned != message else { break }
            pinned = message
            effects.append(.broadcast(.event(.pinned(message))))
        case .slow(let seconds):
            guard slow != seconds else { break }
            slow = seconds
            effects.append(.broadcast(.event(.slow(seconds))))
        case .banned(let user):
            bans.insert(UserID(user))
            endSessions(of: user, .banned, now: now, into: &effects)
            effects.append(.revokeMedia(user: user))
        case .unbanned(let user):
            bans.remove(UserID(user))
        case .kicked(let user):
            endSessions(of: user, .kicked, now: now, into: &effects)
        case .timedOut(let user, let until):
            timeouts[UserID(user)] = until
            for session in sessionsByUser[UserID(user)] ?? [] {
                if let state = sessions[session] {
                    effects.append(.send(session, .event(.you(standing(of: state, now: now)))))
                }
            }
        case .reaction(let reaction):
            reactionTally[reaction, default: 0] += 1
            if reactionAnnouncer.changed(now: now) { flushReactions(into: &effects) }
        case .ingestKey(let record):
            let old = ingestKey?.hash
            ingestKey = record
            effects.append(.ingestChanged(ingestEntry))
            if let old, old != record.hash { effects.append(.cutPublishers(keyHash: old)) }
        case .media(let record):
            applyMedia(record, now: now, into: &effects)
        case .presence(let key, let delta):
            changePresence(key, by: delta, now: now, into: &effects)
        }
        return effects
    }

    private mutating func applyMedia(_ record: MediaRecord, now: Int64, into effects: inout [ShowEffect]) {
        let old = media
        media = record
        if record.state != .live {
            liveSince = nil
        } else if old.state != .live {
            liveSince = now
        }
        if record.generation != old.generation || record.ended != old.ended {
            effects.append(.ingestChanged(ingestEntry))
        }
        // Pictures of an older generation are cut: the host ended the show.
        if record.generation > old.generation { effects.append(.cutPublishers(keyHash: nil)) }
        if record.state != old.state { effects.append(.broadcast(.event(.state(record.state)))) }
        if record.tiles != old.tiles || record.main != old.main {
            effects.append(.broadcast(.event(.tiles(record.sortedTiles, main: record.main))))
        }
        if record.main != old.main { effects.append(.broadcast(.event(.media(main: record.main)))) }
    }

    private mutating func endSessions(of user: String, _ reason: EndReason, now: Int64,
                                      into effects: inout [ShowEffect]) {
        for session in sessionsByUser[UserID(user)] ?? [] {
            end(session, reason, now: now, into: &effects)
        }
    }
}
