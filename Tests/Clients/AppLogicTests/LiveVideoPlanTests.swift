import AppLogic
import LiveProtocol
import Testing

/// What the video view plays.
struct LiveVideoPlanTests {
    static let access = MediaAccess(token: "m1.1764500000.1764500600.Ym9i.q83vEjRWeJC8Xl2Xk5aXmQ",
                                    expiresAt: 1_764_500_600_000)

    @Test func theMainPictureWhileLiveWithTheSessionsToken() {
        #expect(LiveVideoPlan.decide(server: "https://live.example.com/", stream: "show:mugs", state: .live,
                                     tiles: [.camera], chosen: nil, access: Self.access)
                == .play("https://live.example.com/hls/show:mugs/\(Self.access.token)/main.m3u8"))
        #expect(LiveVideoPlan.decide(server: "http://127.0.0.1:8080", stream: "show:mugs", state: .live,
                                     tiles: [.camera, .obs], chosen: .obs, access: Self.access)
                == .play("http://127.0.0.1:8080/hls/show:mugs/\(Self.access.token)/obs.m3u8"))
        // A renewed token is a new plan.
        let renewed = MediaAccess(token: "m1.1764500300.1764500900.Ym9i.AAAAAAAAAAAAAAAAAAAAAA",
                                  expiresAt: 1_764_500_900_000)
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .live, tiles: [.camera], chosen: nil,
                                     access: renewed)
                == .play("http://h/hls/s/\(renewed.token)/main.m3u8"))
    }

    @Test func waitingWithoutAPicture() {
        let access = Self.access
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .idle, tiles: [], chosen: nil,
                                     access: access)
                == .waiting("Not live yet"))
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .ended, tiles: [], chosen: nil,
                                     access: access)
                == .waiting("The show has ended"))
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .live, tiles: [.camera], chosen: .screen,
                                     access: access)
                == .waiting("The screen picture is not live"))
        #expect(LiveVideoPlan.decide(server: "ws://h", stream: "s", state: .live, tiles: [.camera], chosen: nil,
                                     access: access)
                == .waiting("The server address is not an http(s) URL"))
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .live, tiles: [.camera], chosen: nil,
                                     access: nil)
                == .waiting("The server gave no media token: the picture cannot be fetched"))
    }
}
