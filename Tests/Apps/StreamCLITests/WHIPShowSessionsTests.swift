import LiveProtocol
import LiveShows
@testable import StreamCLI
import Testing

/// The table of WHIP sessions admitted into shows: what a start, a stop and the show's end find, and admissions
/// that never connect not filling it.
struct WHIPShowSessionsTests {
    static func ticket(_ show: String, _ tile: TileKind = .camera) throws -> IngestDirectory.Ticket {
        try ShowWHIPAdmission.admit(.init(show: show, tile: tile, grantGeneration: nil), entry: nil,
                                    publishing: false).get()
    }

    @Test func aSessionIsLiveFromItsStartToItsStop() throws {
        var table = WHIPShowSessions()
        let admitted = [table.admit("a", ticket: try Self.ticket("show:mugs"), now: .zero),
                        table.admit("b", ticket: try Self.ticket("show:mugs", .screen), now: .zero),
                        table.admit("c", ticket: try Self.ticket("show:cups"), now: .zero)]
        #expect(admitted == [true, true, true])
        table.created("a", session: "id-a")
        table.created("c", session: "id-c")
        // b's offer is not answered yet: the show's end has nothing of it to close.
        #expect(table.sessions(of: "show:mugs") == ["id-a"])
        let started = table.started("a")
        #expect(started?.ticket.tile == .camera && started?.replacing == nil)
        let plain = table.started("plain-publish-tag")
        #expect(plain == nil)
        let stopped = table.stopped("a")
        #expect(stopped?.show == "show:mugs")
        let again = table.stopped("a")
        #expect(again == nil)
        #expect(table.sessions(of: "show:mugs").isEmpty)
        table.abandon("b")
        #expect(table.count == 1)
    }

    @Test func admissionsThatNeverConnectAreDroppedAndTheTableIsBounded() throws {
        var table = WHIPShowSessions()
        let ticket = try Self.ticket("show:mugs")
        var admitted = 0
        for index in 0..<WHIPShowSessions.maximum where table.admit("pending-\(index)", ticket: ticket,
                                                                      now: .seconds(1)) {
            admitted += 1
        }
        #expect(admitted == WHIPShowSessions.maximum)
        let started = table.started("pending-0")
        #expect(started != nil)
        let full = table.admit("one-more", ticket: ticket, now: .seconds(2))
        #expect(!full, "full: 503")
        // Past their lifetime the ones that never connected go; the one that did stays until it stops.
        let later = table.admit("later", ticket: ticket, now: .seconds(1) + WHIPShowSessions.pendingLifetime)
        #expect(later)
        #expect(table.count == 2)
        let stopped = table.stopped("pending-0")
        #expect(stopped != nil)
    }

    /// A new session of a picture published over WHIP names the one it replaces, which is ended when the new one
    /// connects (said once), and shows in connectedSession until then.
    @Test func aReplacementNamesTheSessionItEndsWhenItConnects() throws {
        var table = WHIPShowSessions()
        _ = table.admit("old", ticket: try Self.ticket("show:mugs"), now: .zero)
        table.created("old", session: "id-old")
        _ = table.started("old")
        let previous = table.connectedSession(show: "show:mugs", tile: .camera)
        #expect(previous?.tag == "old" && previous?.session == "id-old")
        #expect(table.connectedSession(show: "show:mugs", tile: .screen) == nil)
        _ = table.admit("new", ticket: try Self.ticket("show:mugs"), now: .seconds(1), replacing: previous?.session)
        table.created("new", session: "id-new")
        let started = table.started("new")
        #expect(started?.replacing == "id-old")
        #expect(table.started("new")?.replacing == nil, "the replacement is said once")
    }
}
