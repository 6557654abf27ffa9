import Foundation

/// A PostgreSQL server of the test's own (Debian's `postgresql`): a cluster made with `initdb` in a temporary
/// directory, listening on a free loopback port, stopped with the value. Never the system's cluster on 5432.
///
/// PostgreSQL refuses to run as root, so when the tests run as root its programs run as the `postgres` user (with
/// `runuser`) and the directory is handed to that user.
public final class PostgresServer: @unchecked Sendable {
    // Safe: every stored property is immutable after init; the server's state lives in its process.
    public let directory: TemporaryDirectory
    public let port: Int
    /// The superuser `initdb` made.
    public let user = "stream"
    private let dataDirectory: String
    private let binaries: String
    private let asPostgres: Bool

    /// Makes the cluster and starts it.
    /// - Parameter password: when given, TCP connections need it (scram-sha-256); otherwise they are trusted.
    /// - Throws: when PostgreSQL is not installed or does not start (with its log).
    public init(password: String? = nil) throws {
        directory = try TemporaryDirectory("postgres")
        port = try FreePort.next()
        dataDirectory = directory.file("data")
        binaries = try Self.binaries()
        asPostgres = getuid() == 0
        if asPostgres {
            guard let account = getpwnam("postgres") else {
                throw Subprocess.Failure(description: "no postgres user: run scripts/install-deps.sh")
            }
            chown(directory.path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        var arguments = ["-D", dataDirectory, "-U", user, "-E", "UTF8", "--no-locale", "--no-sync",
                         "--auth-local=trust"]
        if let password {
            let file = directory.file("password")
            try password.write(toFile: file, atomically: false, encoding: .utf8)
            if asPostgres, let account = getpwnam("postgres") {
                chown(file, account.pointee.pw_uid, account.pointee.pw_gid)
            }
            chmod(file, 0o600)
            arguments += ["--auth-host=scram-sha-256", "--pwfile=\(file)"]
        } else {
            arguments += ["--auth-host=trust"]
        }
        try run("initdb", arguments)
        try start()
    }

    deinit {
        try? run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"], check: false)
    }

    /// Starts the server (again) on the same port and waits until it accepts connections.
    public func start() throws {
        try run("pg_ctl", ["-D", dataDirectory, "-l", directory.file("server.log"), "-w", "-t", "30", "-o",
                           "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
    }

    /// Stops the server at once (`-m immediate`: clients are cut off, as when it crashes).
    public func stop() throws {
        try run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    /// Freezes the server and its backends (SIGSTOP): connections stay open, nothing is answered until ``thaw()``.
    public func freeze() {
        signalAll(SIGSTOP)
    }

    /// Lets a frozen server go on.
    public func thaw() {
        signalAll(SIGCONT)
    }

    /// The URL of a database on this server, as `stream serve --store` takes it.
    public func url(_ database: String = "postgres") -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)"
    }

    /// Makes an empty database.
    public func makeDatabase(_ name: String) throws {
        _ = try psql("CREATE DATABASE \"\(name)\"", database: "postgres")
    }

    /// Runs SQL with `psql` (not our client) over the Unix socket as the superuser.
    /// - Returns: the rows, unaligned, `|` between columns.
    public func psql(_ sql: String, database: String) throws -> String {
        let output = directory.file("psql-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: output) }
        try run(binaries + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-o", output, "-h",
                                     directory.path, "-p", String(port), "-U", user, "-d", database, "-c", sql],
                asPostgres: false)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// The server's log, for failure messages.
    public var log: String {
        (try? String(contentsOfFile: directory.file("server.log"), encoding: .utf8)) ?? "(no log)"
    }

    /// Runs one of PostgreSQL's programs to its end (at most 60 s), as `postgres` when the tests run as root.
    /// `BackgroundProcess` (posix_spawn and waitpid) rather than `Subprocess`: Foundation's `Process` did not reap
    /// `runuser` once `pg_ctl` had left the server running, and waited for ever.
    private func run(_ program: String, _ arguments: [String], check: Bool = true) throws {
        try run(binaries + "/" + program, arguments, asPostgres: asPostgres, check: check)
    }

    private func run(_ path: String, _ arguments: [String], asPostgres: Bool, check: Bool = true) throws {
        let errors = directory.file("stderr-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let process = asPostgres
            ? try BackgroundProcess("runuser", ["-u", "postgres", "--", path] + arguments, errorLog: errors)
            : try BackgroundProcess(path, arguments, errorLog: errors)
        let status = process.waitForExit(timeout: 60)
        guard !check || status == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Subprocess.Failure(description: "\((path as NSString).lastPathComponent) failed "
                                     + "(\(status.map(String.init) ?? "still running after 60 s")): \(said)\n\(log)")
        }
    }

    private func signalAll(_ signal: Int32) {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let postmaster = Int32(first) else { return }
        kill(postmaster, signal)
        for child in childProcesses(of: postmaster) { kill(child, signal) }
    }

    /// Debian's newest PostgreSQL: `/usr/lib/postgresql/VERSION/bin`.
    private static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
        guard let newest = versions.max(), FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb")
        else {
            throw Subprocess.Failure(description: "PostgreSQL is not installed (no \(root)/*/bin/initdb): run "
                                     + "scripts/install-deps.sh")
        }
        return "\(root)/\(newest)/bin"
    }
}
