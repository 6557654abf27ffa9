import Foundation
import Identity
import TestSupport

/// Runs the live-show commands (`watch`, `live`, `show`) as a user does, against a ``LiveShowServer``.
struct LiveShowCLI {
    let server: LiveShowServer

    /// A token for `user` minted with the server's secret, valid for `seconds` (negative: expired).
    static func token(_ user: String, seconds: Int64 = 3600) -> String {
        let secret = try! TokenSecret(fileContents: Array(LiveShowServer.secretText.utf8))  // a valid constant
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken(subject: user, expiresAt: now + seconds, issuedAt: now).signed(with: secret)
    }

    /// Runs `stream ARGS` to completion with `stdin`.
    func run(_ arguments: [String], stdin: String = "", timeout: TimeInterval = 30) throws -> Subprocess.Result {
        try Subprocess.run(try StreamExecutable.url().path, arguments, timeout: timeout,
                           environment: ["XDG_CONFIG_HOME": server.work.file("cli-config"), "PATH": "/usr/bin:/bin"],
                           stdin: Data(stdin.utf8))
    }

    /// Runs `stream show ...` as `user` (token on standard input).
    func show(_ user: String, _ arguments: [String]) throws -> Subprocess.Result {
        try run(["show"] + arguments.prefix(1) + [server.base, "show:mugs"] + arguments.dropFirst()
                + ["--token-stdin"], stdin: Self.token(user) + "\n")
    }

    /// Starts `stream ARGS` in the background; its standard error goes to `log`.
    func start(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
               log: String) throws -> BackgroundProcess {
        var variables = TemporaryConfigHome.environment(in: server.work.path).merging(environment) { $1 }
        variables["XDG_CONFIG_HOME"] = server.work.file("cli-config")
        return try BackgroundProcess(try StreamExecutable.url().path, arguments, environment: variables,
                                     errorLog: server.work.file(log), stdin: stdin)
    }

    /// Starts `stream watch SERVER show:mugs --json` as `user` (a token file), nil for a visitor.
    func watch(_ user: String?, log: String, extra: [String] = []) throws -> BackgroundProcess {
        var arguments = ["watch", server.base, "show:mugs", "--json"] + extra
        if let user { arguments += ["--token-file", try server.tokenFile(Self.token(user))] }
        return try start(arguments, log: log)
    }
}

/// Reads a `--json` watcher's lines until one satisfies `predicate`; returns every line read.
func readEvents(_ watcher: BackgroundProcess, until what: String, timeout: TimeInterval = 20,
                _ predicate: ([String: Any]) -> Bool) throws -> [[String: Any]] {
    var seen: [[String: Any]] = []
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let line = try watcher.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow))
        guard let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Subprocess.Failure(description: "not a JSON object: \(line)")
        }
        seen.append(event)
        if predicate(event) { return seen }
    }
    throw Subprocess.Failure(description: "no \(what) within \(timeout) s; saw \(seen)")
}
