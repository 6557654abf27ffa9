import AVFoundation
import AppLogic
import LiveProtocol
import RealtimeCalls
import SwiftUI
import UIKit

/// The picture of a live stream (the seed's `LiveStreamVideoView`): AVPlayer on the LL-HLS playlist of the main
/// picture (`/hls/{stream}/main.m3u8`) or of a chosen tile, following the show; or the host's own camera preview.
/// What to play is decided by `LiveVideoPlan` (AppLogic); this view only loads it.
final class LiveStreamVideoView: UIView {
    override static var layerClass: AnyClass { AVPlayerLayer.self }
    private var playerLayer: AVPlayerLayer { layer as! AVPlayerLayer }  // layerClass above
    private let player = AVPlayer()
    private let label = UILabel()
    private var previewLayer: AVCaptureVideoPreviewLayer?
    private var plan: LiveVideoPlan?

    override init(frame: CGRect) {
        super.init(frame: frame)
        backgroundColor = .black
        playerLayer.player = player
        playerLayer.videoGravity = .resizeAspect
        player.automaticallyWaitsToMinimizeStalling = false  // LL-HLS: stay near the live edge
        label.textColor = .white
        label.textAlignment = .center
        label.translatesAutoresizingMaskIntoConstraints = false
        addSubview(label)
        NSLayoutConstraint.activate([label.centerXAnchor.constraint(equalTo: centerXAnchor),
                                     label.centerYAnchor.constraint(equalTo: centerYAnchor)])
    }

    required init?(coder: NSCoder) { nil }

    /// Shows the stream's main picture (or `tile`) as it changes; its sound plays by itself.
    func show(_ show: LiveStream, tile: TileKind? = nil) {
        let server = show.server
        update(show.model, server: server, tile: tile)
        show.onChange { [weak self, weak show] in
            guard let model = show?.model else { return }
            Task { @MainActor in self?.update(model, server: server, tile: tile) }
        }
    }

    /// Shows the host's camera preview instead of a playlist.
    func showPreview(_ session: AVCaptureSession) {
        player.pause()
        let preview = AVCaptureVideoPreviewLayer(session: session)
        preview.videoGravity = .resizeAspectFill
        preview.frame = bounds
        layer.addSublayer(preview)
        previewLayer = preview
    }

    override func layoutSubviews() {
        super.layoutSubviews()
        previewLayer?.frame = bounds
    }

    private func update(_ model: LiveStreamModel, server: String, tile: TileKind?) {
        let next = LiveVideoPlan.decide(server: server, stream: model.name, state: model.state, tiles: model.tiles,
                                        chosen: tile, access: model.access)
        guard next != plan else { return }
        plan = next
        switch next {
        case .play(let address):
            label.text = nil
            guard let url = URL(string: address) else { return }
            player.replaceCurrentItem(with: AVPlayerItem(url: url))
            player.play()
        case .waiting(let text):
            player.replaceCurrentItem(with: nil)
            label.text = text
        }
    }
}

/// ``LiveStreamVideoView`` in SwiftUI.
struct LiveStreamVideo: UIViewRepresentable {
    let show: LiveStream
    var tile: TileKind?
    var preview: AVCaptureSession?

    func makeUIView(context: Context) -> LiveStreamVideoView {
        let view = LiveStreamVideoView()
        if let preview { view.showPreview(preview) } else { view.show(show, tile: tile) }
        return view
    }

    func updateUIView(_ view: LiveStreamVideoView, context: Context) {}
}
