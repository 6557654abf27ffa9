import FLV
import Testing
import TestSupport
@testable import LiveHLS

@Suite struct HLSPublishRouterTests {
    typealias Action = HLSPublishRouter.Action
    static let plain = HLSPublishRouter.Publish(app: "live", keyTag: "3f2a9c013f2a9c013f2a9c013f2a9c01")
    static let camera = HLSPublishRouter.Publish(app: "live", keyTag: "0000cafe0000cafe0000cafe0000cafe")
    static let screen = HLSPublishRouter.Publish(app: "live", keyTag: "0000beef0000beef0000beef0000beef")
    static let cameraID = HLSStreamID(show: "show:mugs", picture: "camera")!
    static let screenID = HLSStreamID(show: "show:mugs", picture: "screen")!
    static let mainID = HLSStreamID(show: "show:mugs", picture: "main")!

    @Test func streamIDsNameAddressesWithoutKeys() {
        #expect(HLSStreamID(app: "live", tag: Self.plain.keyTag)?.playlistPath
                    == "/hls/live/\(Self.plain.keyTag)/index.m3u8")
        #expect(Self.mainID.playlistPath == "/hls/show:mugs/main.m3u8")
        #expect(Self.cameraID.directory == Self.mainID.directory)
        #expect(HLSStreamID(show: "..", picture: "main") == nil)
        #expect(HLSStreamID(show: "a/b", picture: "main") == nil)
        #expect(HLSStreamID(show: "show:mugs", picture: "index") == nil)
        #expect(HLSStreamID(show: "show:mugs", picture: "Main") == nil)
        #expect(HLSStreamID(show: String(repeating: "x", count: 129), picture: "main") == nil)
    }

    @Test func aPlainPublishFeedsItsOwnPlaylistUntilItStops() {
        var router = HLSPublishRouter()
        let stream = SyntheticStream()
        let id = HLSStreamID(app: "live", tag: "3f2a9c013f2a9c013f2a9c013f2a9c01")!
        let started = router.publishStarted(Self.plain)
        #expect(started.actions == [.start(id)] && started.id == id)
        #expect(router.tag(stream.videoFrame(0), of: Self.plain) == [.append(stream.videoFrame(0), id)])
        #expect(router.publishStopped(Self.plain) == [.stop(id)])
        #expect(router.tag(stream.videoFrame(1), of: Self.plain).isEmpty)
        // An app or tag that makes no address is not packaged.
        #expect(router.publishStarted(HLSPublishRouter.Publish(app: "../x", keyTag: Self.plain.keyTag)).id == nil)
    }

    @Test func theMainPictureFollowsTheShowWithADiscontinuityAtEachSwitch() {
        var router = HLSPublishRouter()
        var cameraStream = SyntheticStream()
        cameraStream.avc = SyntheticStream.otherAVCC
        let screenStream = SyntheticStream()
        router.expect(Self.camera, show: "show:mugs", tile: "camera")
        router.expect(Self.screen, show: "show:mugs", tile: "screen")
        #expect(router.publishStarted(Self.camera).actions == [.start(Self.cameraID)])
        #expect(router.publishStarted(Self.screen).actions == [.start(Self.screenID)])
        for tag in cameraStream.headers { #expect(router.tag(tag, of: Self.camera) == [.append(tag, Self.cameraID)]) }
        for tag in screenStream.headers { _ = router.tag(tag, of: Self.screen) }

        // The show names the screen its main picture: the main stream starts with the screen's sequence headers,
        // and the screen's frames go to both.
        #expect(router.pictures(show: "show:mugs", tiles: ["camera", "screen"], main: "screen")
                == [.start(Self.mainID)] + screenStream.headers.map { .append($0, Self.mainID) })
        let frame = screenStream.videoFrame(0)
        #expect(router.tag(frame, of: Self.screen) == [.append(frame, Self.screenID), .append(frame, Self.mainID)])
        #expect(router.tag(cameraStream.videoFrame(0), of: Self.camera).count == 1)
        #expect(router.pictures(show: "show:mugs", tiles: ["camera", "screen"], main: "screen").isEmpty)

        // The host chooses the camera: a discontinuity, then the camera's headers and frames.
        #expect(router.pictures(show: "show:mugs", tiles: ["camera", "screen"], main: "camera")
                == [.discontinuity(Self.mainID)] + cameraStream.headers.map { .append($0, Self.mainID) })
        #expect(router.tag(frame, of: Self.screen) == [.append(frame, Self.screenID)])
        #expect(router.tag(cameraStream.videoFrame(1), of: Self.camera).count == 2)

        // The show ends: its tiles stop, and with no picture left the main stream ends.
        #expect(router.publishStopped(Self.camera) == [.stop(Self.cameraID)])
        #expect(router.publishStopped(Self.screen) == [.stop(Self.screenID)])
        #expect(router.pictures(show: "show:mugs", tiles: [], main: nil) == [.stop(Self.mainID)])
        #expect(router.pictures(show: "show:mugs", tiles: [], main: nil).isEmpty)
    }

    @Test func admissionsThatNeverStartAreForgotten() {
        var router = HLSPublishRouter()
        for index in 0..<(HLSPublishRouter.maximumExpected + 10) {
            router.expect(HLSPublishRouter.Publish(app: "live", keyTag: "#\(index)"), show: "show:x", tile: "camera")
        }
        router.expect(Self.camera, show: "show:mugs", tile: "camera")
        #expect(router.publishStarted(Self.camera).id == Self.cameraID)
        // Not expected any more: a later publish with that tag is a plain one.
        _ = router.publishStopped(Self.camera)
        #expect(router.publishStarted(Self.camera).id == HLSStreamID(app: "live", tag: Self.camera.keyTag))
    }
}
