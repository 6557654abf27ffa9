import LiveProtocol
import LiveShows
import Testing

/// Which refusal a WHEP player of a show gets for which credentials, role, tile and show, and which tile a
/// main-picture player follows.
struct ShowWHEPAdmissionTests {
    @Test func theBearersFormTellsAVisitorAMediaTokenAndAnAccessToken() {
        #expect(ShowWHEPAdmission.credential(bearer: nil) == .visitor)
        #expect(ShowWHEPAdmission.credential(bearer: "") == .visitor)
        #expect(ShowWHEPAdmission.credential(bearer: "m1.1764500000.1764500600.Ym9i.q83v")
                    == .mediaToken("m1.1764500000.1764500600.Ym9i.q83v"))
        #expect(ShowWHEPAdmission.credential(bearer: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln")
                    == .accessToken("eyJhbGciOiJIUzI1NiJ9.e30.c2ln"))
    }

    @Test func aVisitorWhoMayNotWatchIs401AUserIs403() throws {
        #expect(ShowWHEPAdmission.refusal(user: nil, mayWatch: true, stream: "show:x") == nil)
        #expect(ShowWHEPAdmission.refusal(user: "bob", mayWatch: true, stream: "show:x") == nil)
        let visitor = try #require(ShowWHEPAdmission.refusal(user: nil, mayWatch: false, stream: "show:x"))
        #expect(visitor.status == 401)
        #expect(visitor.reason == "sign in to watch show:x")
        let banned = try #require(ShowWHEPAdmission.refusal(user: "bob", mayWatch: false, stream: "show:x"))
        #expect(banned.status == 403)
        #expect(banned.reason == "you may not watch show:x")
    }

    @Test func theTileQueryIsTheMainPictureOrOneTile() throws {
        #expect(try ShowWHEPAdmission.picture(query: nil).get() == .main)
        #expect(try ShowWHEPAdmission.picture(query: "camera").get() == .tile(.camera))
        #expect(try ShowWHEPAdmission.picture(query: "screen").get() == .tile(.screen))
        #expect(try ShowWHEPAdmission.picture(query: "obs").get() == .tile(.obs))
        for query in ["", "Camera", "main", "camera "] {
            guard case .failure(let refusal) = ShowWHEPAdmission.picture(query: query) else {
                Issue.record("\(query) was taken")
                continue
            }
            #expect(refusal.status == 400)
        }
    }

    @Test func nothingLiveOnTheTileOrNoMainPictureIs404() throws {
        #expect(try ShowWHEPAdmission.source(of: .main, tiles: [.camera, .screen], main: .screen).get() == .screen)
        #expect(try ShowWHEPAdmission.source(of: .tile(.camera), tiles: [.camera, .screen], main: .screen).get()
                    == .camera)
        let cases: [(ShowWHEPAdmission.Picture, [TileKind], TileKind?)] = [
            (.main, [], nil), (.main, [.camera], .screen), (.tile(.screen), [.camera], .camera), (.tile(.obs), [], nil),
        ]
        for (picture, tiles, main) in cases {
            guard case .failure(let refusal) = ShowWHEPAdmission.source(of: picture, tiles: tiles, main: main) else {
                Issue.record("\(picture) with \(tiles) was admitted")
                continue
            }
            #expect(refusal.status == 404)
        }
    }

    @Test func aMainPicturePlayerFollowsTheHostsChoice() {
        let both: Set<TileKind> = [.camera, .screen]
        #expect(ShowWHEPAdmission.follow(playing: .camera, main: .camera, forwardable: both) == .stay)
        #expect(ShowWHEPAdmission.follow(playing: .camera, main: .screen, forwardable: both) == .switchTo(.screen))
        #expect(ShowWHEPAdmission.follow(playing: nil, main: .camera, forwardable: both) == .switchTo(.camera))
        #expect(ShowWHEPAdmission.follow(playing: .camera, main: nil, forwardable: both) == .wait)
        // A main picture the server cannot forward (not published over WHIP or RTMP here): wait on the old one.
        #expect(ShowWHEPAdmission.follow(playing: .camera, main: .obs, forwardable: both) == .wait)
    }
}
