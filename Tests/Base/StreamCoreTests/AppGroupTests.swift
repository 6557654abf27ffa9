import Testing
@testable import StreamCore

@Suite struct AppGroupTests {
    @Test func identifiersMatchTheEntitlements() {
        #expect(AppGroup.identifier == "group.com.joeblau.Stream")
        #expect(AppGroup.settingsKey == "stream.settings.v1")
        #expect(AppGroup.keychainService == "com.joeblau.Stream.connection")
    }

    @Test(arguments: ["ABCDE12345", "ABCDE12345."])
    func keychainAccessGroupAddsTheTeamPrefixOnce(_ prefix: String) {
        #expect(AppGroup.keychainAccessGroup(appIdentifierPrefix: prefix) == "ABCDE12345.com.joeblau.Stream")
    }
}
