import SwiftUI

/// The Stream app: edits and persists the settings, lists audio inputs and presents the broadcast picker.
/// It never captures the screen itself; the StreamBroadcast extension does.
@main
struct StreamApp: App {
    @State private var model = SettingsModel()

    var body: some Scene {
        WindowGroup {
            NavigationStack {
                SettingsView(model: model)
            }
        }
    }
}
