import AppLogic
import Foundation
import Observation
import StreamCore

/// The settings screen's state: `StreamSettings` saved to the App Group on every edit, and the connection saved to
/// the Keychain (never to user defaults).
@MainActor
@Observable
final class SettingsModel {
    /// The non-sensitive settings, as loaded from `stream.settings.v1`.
    var settings: StreamSettings
    /// The URL field.
    var urlText = ""
    /// The stream key field (a SecureField).
    var streamKey = ""
    /// The result of the last connection save, never containing the key.
    var connectionStatus = ""
    /// Values that were clamped or a corrupt blob that was set aside.
    var warnings: [String] = []

    private let store = SettingsStore.appGroup()
    private let credentials = KeychainAccess.credentialStore()

    init() {
        let result = store.load()
        settings = result.settings
        warnings = result.warnings.map(\.message)
        do {
            if let saved = try credentials.load() {
                urlText = saved.url.tcUrl
                streamKey = saved.streamKey
                connectionStatus = "Saved: \(saved.description)"
            }
        } catch {
            connectionStatus = "\(error)"
        }
    }

    /// Writes the settings blob (called on every edit).
    func saveSettings() {
        do {
            warnings = try store.save(settings).map(\.message)
        } catch {
            warnings = ["\(error)"]
        }
    }

    /// Checks and saves the URL and key to the Keychain.
    func saveConnection() {
        let key = streamKey.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let url = try IngestURL(parsing: urlText)
            try StreamCredentials.validateStreamKey(key, for: url.scheme)
            let credentials = StreamCredentials(url: url, streamKey: key)
            try self.credentials.save(credentials)
            streamKey = key
            connectionStatus = "Saved to the Keychain: \(credentials.description)"
        } catch {
            connectionStatus = Redaction.redact("\(error)", secrets: [key])
        }
    }

    /// The memory plan for this screen, for the quality footnote.
    /// - Parameter screen: the screen size in pixels.
    func memoryPlan(screen: PixelSize) -> MemoryBudget.Plan {
        let facecam = FacecamPlan(pipEnabled: settings.pipEnabled, front: settings.cameraPosition == .front,
                                  multitaskingCameraAccessSupported: CameraAccess.multitaskingSupported,
                                  authorization: CameraAccess.authorization).startsCamera
        return MemoryBudget.plan(screen: screen, settings: settings, facecam: facecam)
    }
}
