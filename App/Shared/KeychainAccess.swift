import Foundation
import StreamCore

/// The credential store the app and the extension share: the Keychain item in the shared access group
/// `$(AppIdentifierPrefix)com.joeblau.Stream`. The team prefix comes from Info.plist (`AppIdentifierPrefix`, filled in
/// at build time); without it (an unsigned build) the entitlements' first group is used.
enum KeychainAccess {
    static func credentialStore() -> KeychainCredentialStore {
        let prefix = Bundle.main.object(forInfoDictionaryKey: "AppIdentifierPrefix") as? String
        let group = prefix.flatMap { $0.isEmpty ? nil : AppGroup.keychainAccessGroup(appIdentifierPrefix: $0) }
        return KeychainCredentialStore(accessGroup: group)
    }
}
