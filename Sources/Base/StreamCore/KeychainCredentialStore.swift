#if canImport(Security)
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Security

/// Credentials as one generic-password item in the shared Keychain access group, readable by the app and its
/// broadcast extension: service `com.joeblau.Stream.connection`, account `default`, the value the JSON of
/// `StreamCredentials.encoded()`.
public struct KeychainCredentialStore: CredentialStore {
    /// The item's service.
    public let service: String
    /// The item's account.
    public let account: String
    /// The access group, e.g. `AppGroup.keychainAccessGroup(appIdentifierPrefix: "ABCDE12345.")`; nil uses the
    /// first group of the entitlements.
    public let accessGroup: String?

    /// Creates a store.
    /// - Parameters:
    ///   - accessGroup: the shared access group (with team prefix), or nil.
    ///   - service: the item's service.
    ///   - account: the item's account.
    public init(accessGroup: String?, service: String = AppGroup.keychainService,
                account: String = AppGroup.keychainAccount) {
        self.accessGroup = accessGroup
        self.service = service
        self.account = account
    }

    /// The service and access group.
    public var location: String { "Keychain item \(service) (\(accessGroup ?? "default access group"))" }

    private var query: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// Reads the item.
    public func load() throws -> StreamCredentials? {
        var request = query
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw failure("read", status) }
        return try StreamCredentials.decode(data, location: location)
    }

    /// Updates the item, or adds it when missing. Readable after the first unlock, so the extension can start
    /// a broadcast from the lock screen's Control Center.
    public func save(_ credentials: StreamCredentials) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: credentials.encoded(),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
        var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw failure("save", status) }
    }

    /// Deletes the item.
    public func clear() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw failure("delete", status) }
    }

    private func failure(_ action: String, _ status: OSStatus) -> StreamCoreError {
        let reason = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
        return StreamCoreError(.keychain, "cannot \(action) the credentials in the Keychain: \(reason) — "
                                 + "check the Keychain Sharing entitlement (\(AppGroup.keychainAccessGroupSuffix))")
    }
}
#endif
