import AppLogic
import LiveProtocol
import Testing

/// What the video view plays.
struct LiveVideoPlanTests {
    @Test func theMainPictureWhileLive() {
        #expect(LiveVideoPlan.decide(server: "https://live.example.com/", stream: "show:mugs", state: .live,
                                     tiles: [.camera], chosen: nil)
                == .play("https://live.example.com/hls/show:mugs/main.m3u8"))
        #expect(LiveVideoPlan.decide(server: "http://127.0.0.1:8080", stream: "show:mugs", state: .live,
                                     tiles: [.camera, .obs], chosen: .obs)
                == .play("http://127.0.0.1:8080/hls/show:mugs/obs.m3u8"))
    }

    @Test func waitingWithoutAPicture() {
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .idle, tiles: [], chosen: nil)
                == .waiting("Not live yet"))
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .ended, tiles: [], chosen: nil)
                == .waiting("The show has ended"))
        #expect(LiveVideoPlan.decide(server: "http://h", stream: "s", state: .live, tiles: [.camera], chosen: .screen)
                == .waiting("The screen picture is not live"))
        #expect(LiveVideoPlan.decide(server: "ws://h", stream: "s", state: .live, tiles: [.camera], chosen: nil)
                == .waiting("The server address is not an http(s) URL"))
    }
}
