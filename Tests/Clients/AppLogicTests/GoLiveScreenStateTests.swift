import AppLogic
import LiveProtocol
import RealtimeCalls
import Testing

/// The go-live screen's buttons, status and permission hint.
struct GoLiveScreenStateTests {
    @Test func aHostPreviewsGoesLiveAndEnds() {
        let idle = GoLiveScreenState(role: .host, state: .idle, media: .live, phase: .idle, camera: .notDetermined,
                                     microphone: .notDetermined)
        #expect(idle.canPreview && idle.canGoLive && !idle.canEnd && idle.canToggle && idle.status == "Ready")
        let previewing = GoLiveScreenState(role: .host, state: .idle, media: .live, phase: .previewing,
                                           camera: .authorized, microphone: .authorized)
        #expect(!previewing.canPreview && previewing.canGoLive && previewing.permissionHint == nil)
        let going = GoLiveScreenState(role: .host, state: .idle, media: .live, phase: .goingLive,
                                      camera: .authorized, microphone: .authorized)
        #expect(!going.canGoLive && !going.canToggle && going.status == "Going live…")
        let live = GoLiveScreenState(role: .host, state: .live, media: .live, phase: .live, camera: .authorized,
                                     microphone: .authorized)
        #expect(live.canEnd && !live.canGoLive && live.status == "Live")
        let ended = GoLiveScreenState(role: .host, state: .ended, media: .live, phase: .idle, camera: .authorized,
                                      microphone: .authorized)
        #expect(ended.canGoLive && ended.status == "The show has ended; go live to reopen it.")
    }

    @Test func aViewerADeniedPermissionAndNoConnectionBlock() {
        let viewer = GoLiveScreenState(role: .viewer, state: .idle, media: .live, phase: .idle, camera: .authorized,
                                       microphone: .authorized)
        #expect(!viewer.canPreview && !viewer.canGoLive && !viewer.canEnd && !viewer.canToggle)
        #expect(viewer.status == "Only the host can go live here.")
        let denied = GoLiveScreenState(role: .host, state: .idle, media: .live, phase: .idle, camera: .authorized,
                                       microphone: .denied)
        #expect(!denied.canGoLive && !denied.canPreview && denied.permissionHint?.contains("Settings") == true)
        let away = GoLiveScreenState(role: .host, state: .live, media: .reconnecting, phase: .live,
                                     camera: .authorized, microphone: .authorized)
        #expect(!away.canEnd && !away.canGoLive && away.status == "Reconnecting…")
    }
}
