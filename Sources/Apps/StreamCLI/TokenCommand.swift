#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Identity

/// `stream token`: mints an access token for development, as an app's backend would.
struct TokenCommand: Command {
    let name = "token"
    let summary = "Mint a live-show access token (HS256 JWT) for development."
    let discussion = """
        Prints one token for --user, signed with the secret in --secret-file (a private file: mode 0600), valid
        for --ttl seconds (default 3600). Give it to a client as the access_token query parameter or an
        `Authorization: Bearer` header of /v1/streams/NAME. In production the app's own backend mints tokens
        with the same secret: any HS256 JWT library, claims `sub` (the user id), optional `name`, `exp`, `nbf`,
        `iat`. This is the one command that prints a secret: keep its output out of logs.
        """
    static let maximumTTL = 30 * 86_400
    let options: [OptionSpec] = [
        .value("user", valueName: "ID", help: "The user id (the token's sub)."),
        .value("name", valueName: "NAME", help: "The display name in chat (default: the user id)."),
        .value("ttl", valueName: "SECONDS", help: "How long the token is valid (default 3600, at most 30 days)."),
        .value("secret-file", valueName: "FILE", help: "The token secret (at least 32 bytes, mode 0600)."),
    ]

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("token")
        guard let user = arguments.value("user"), !user.isEmpty,
              user.utf8.count <= AccessToken.maximumSubjectLength else {
            throw CLIError.usage("--user ID is required (1 to \(AccessToken.maximumSubjectLength) bytes)")
        }
        let name = arguments.value("name")
        if let name {
            guard !name.isEmpty, name.unicodeScalars.count <= AccessToken.maximumNameLength,
                  !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw CLIError.usage("--name must be 1 to \(AccessToken.maximumNameLength) characters without "
                                        + "control characters")
            }
        }
        var ttl = 3600
        if let text = arguments.value("ttl") {
            guard let seconds = Int(text), (1...Self.maximumTTL).contains(seconds) else {
                throw CLIError.usage("--ttl must be a whole number of seconds from 1 to \(Self.maximumTTL), "
                                        + "not '\(text.prefix(20))'")
            }
            ttl = seconds
        }
        guard let file = arguments.value("secret-file") else {
            throw CLIError.usage("--secret-file FILE is required (make one with `openssl rand -hex 32 > FILE; "
                                    + "chmod 600 FILE`)")
        }
        let secret = try TokenSecretFile.read(file, flag: "--secret-file")
        let now = Int64(Date().timeIntervalSince1970)
        let token = AccessToken(subject: user, name: name, expiresAt: now + Int64(ttl), issuedAt: now)
        context.console.print(token.signed(with: secret))
        return ExitCode.success
    }
}
