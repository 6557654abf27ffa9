import Identity
import LiveProtocol
import LiveShows
import Testing

/// Which refusal a WHIP publish to a show gets for which token, role, show and picture.
struct ShowWHIPAdmissionTests {
    static let secret = try! TokenSecret(ShowHarness.secret)
    static let now = ShowHarness.start
    static let catalog = ShowHarness.seedCatalog()

    static func token(_ user: String, expiresIn seconds: Int64 = 3600) -> String {
        AccessToken(subject: user, expiresAt: now / 1000 + seconds).signed(with: secret)
    }

    static func check(_ stream: String = "show:mugs", tile: String? = "camera",
                      bearer: String?) -> Result<ShowWHIPAdmission.Request, ShowWHIPAdmission.Refusal> {
        ShowWHIPAdmission.check(stream: stream, tile: tile, bearer: bearer, now: now, catalog: catalog,
                                secret: secret, credentials: ShowHarness.credentials)
    }

    static func status(_ result: Result<ShowWHIPAdmission.Request, ShowWHIPAdmission.Refusal>) -> Int {
        switch result {
        case .success: return 200
        case .failure(let refusal): return refusal.status
        }
    }

    @Test func theHostsTokenPublishesTheCameraOrTheScreen() throws {
        let camera = try Self.check(bearer: Self.token("ann")).get()
        #expect(camera == ShowWHIPAdmission.Request(show: "show:mugs", tile: .camera, grantGeneration: nil))
        #expect(try Self.check(tile: "screen", bearer: Self.token("ann")).get().tile == .screen)
        // No tile is the camera, as goLive's default.
        #expect(try Self.check(tile: nil, bearer: Self.token("ann")).get().tile == .camera)
    }

    @Test func refusalsByTokenRoleShowAndTile() {
        #expect(Self.status(Self.check(bearer: nil)) == 401)
        #expect(Self.status(Self.check(bearer: "")) == 401)
        #expect(Self.status(Self.check(bearer: "not-a-token")) == 401)
        #expect(Self.status(Self.check(bearer: Self.token("ann", expiresIn: -60))) == 401)
        let otherSecret = try! TokenSecret(Array(repeating: 9, count: 32))
        #expect(Self.status(Self.check(bearer: AccessToken(subject: "ann", expiresAt: Self.now / 1000 + 60)
            .signed(with: otherSecret))) == 401)
        for user in ["bob", "mugs", "max", "rita", "nobody"] {
            #expect(Self.status(Self.check(bearer: Self.token(user))) == 403, "\(user) is not a host")
        }
        #expect(Self.status(Self.check("radio:one", bearer: Self.token("ann"))) == 404)
        #expect(Self.status(Self.check(tile: "obs", bearer: Self.token("ann"))) == 400)
        #expect(Self.status(Self.check(tile: "Camera", bearer: Self.token("ann"))) == 400)
        // The token is checked after the show: an unknown show is 404 whatever the token.
        #expect(Self.status(Self.check("radio:one", bearer: "not-a-token")) == 404)
    }

    @Test func aGrantPublishesItsOwnShowAndPictureOnly() throws {
        let grant = ShowHarness.credentials.grant(show: "show:mugs", tile: .screen, generation: 2,
                                                  expiresAt: Self.now + 60_000)
        #expect(try Self.check(tile: "screen", bearer: grant).get().grantGeneration == 2)
        #expect(Self.status(Self.check(tile: "camera", bearer: grant)) == 403)
        #expect(Self.status(Self.check("show:cups", tile: "screen", bearer: grant)) == 403)
        let expired = ShowHarness.credentials.grant(show: "show:mugs", tile: .screen, generation: 2,
                                                    expiresAt: Self.now - 1)
        #expect(Self.status(Self.check(tile: "screen", bearer: expired)) == 401)
        #expect(Self.status(Self.check(tile: "screen", bearer: "grant_forged")) == 401)
    }

    @Test func admissionFollowsTheShowsGenerationAndBusyPictures() throws {
        let host = ShowWHIPAdmission.Request(show: "show:mugs", tile: .camera, grantGeneration: nil)
        let ticket = try ShowWHIPAdmission.admit(host, entry: nil, publishing: false).get()
        #expect(ticket.show == "show:mugs" && ticket.tile == .camera && ticket.generation == 0)
        let reopened = IngestDirectory.Entry(generation: 3, ended: false, keyHash: nil)
        #expect(try ShowWHIPAdmission.admit(host, entry: reopened, publishing: false).get().generation == 3)
        let ended = IngestDirectory.Entry(generation: 3, ended: true, keyHash: nil)
        #expect(Self.refusal(ShowWHIPAdmission.admit(host, entry: ended, publishing: false)) == 409)
        #expect(Self.refusal(ShowWHIPAdmission.admit(host, entry: reopened, publishing: true)) == 409)
        var grant = host
        grant.grantGeneration = 2
        #expect(Self.refusal(ShowWHIPAdmission.admit(grant, entry: reopened, publishing: false)) == 409)
        grant.grantGeneration = 3
        #expect(try ShowWHIPAdmission.admit(grant, entry: reopened, publishing: false).get().generation == 3)
    }

    @Test func noReasonQuotesTheToken() {
        let tokens = [Self.token("ann", expiresIn: -60), Self.token("bob"), "grant_forged_token_value"]
        for token in tokens {
            guard case .failure(let refusal) = Self.check(tile: "camera", bearer: token) else { continue }
            #expect(!refusal.reason.contains(token))
        }
    }

    static func refusal(_ result: Result<IngestDirectory.Ticket, ShowWHIPAdmission.Refusal>) -> Int {
        switch result {
        case .success: return 200
        case .failure(let refusal): return refusal.status
        }
    }
}
