import LiveShows
import PostgresShowStore
import Testing

struct PostgresLocationTests {
    @Test(arguments: [
        ("postgres://stream@db.example:6432/shows",
         PostgresLocation(user: "stream", host: "db.example", port: 6432, database: "shows")),
        ("postgresql://stream@127.0.0.1/shows",
         PostgresLocation(user: "stream", host: "127.0.0.1", port: 5432, database: "shows")),
        ("postgres://stream@[::1]:5433/shows?sslmode=require",
         PostgresLocation(user: "stream", host: "::1", port: 5433, database: "shows", sslMode: "require")),
        ("postgres://str%65am@%2Frun%2Fpostgresql/my%20shows",
         PostgresLocation(user: "stream", host: "/run/postgresql", port: 5432, database: "my shows")),
    ])
    func parses(url: String, expected: PostgresLocation) throws {
        #expect(try PostgresLocation(url: url) == expected)
    }

    @Test(arguments: [
        ("mysql://stream@db/shows", "a PostgreSQL store is a postgres://USER@HOST:PORT/DB URL"),
        ("postgres://stream@db", "names no database"),
        ("postgres://db:5432/shows", "names no user"),
        ("postgres://stream@db:54x/shows", "port is not a number"),
        ("postgres://stream@db:70000/shows", "port 70000 is not from 1 to 65535"),
        ("postgres://stream@db/", "names no database"),
        ("postgres://stream@db/shows?user=root", "takes only ?sslmode="),
        ("postgres://stream@db/sh%zzows", "% not followed by two hex digits"),
        ("postgres://stream@db/sh%00ows", "is not UTF-8 text"),
    ])
    func refuses(url: String, reason: String) {
        #expect { try PostgresLocation(url: url) } throws: { "\($0)".contains(reason) }
    }

    /// A password in the URL is refused, and the message does not repeat it.
    @Test func aPasswordInTheURLIsRefusedWithoutRepeatingIt() {
        #expect { try PostgresLocation(url: "postgres://stream:hunter2@db/shows") } throws: { error in
            "\(error)".contains("holds a password") && "\(error)".contains("--store-password-file")
                && !"\(error)".contains("hunter2")
        }
    }

    @Test func itsDescriptionIsTheURLWithoutSecrets() throws {
        #expect("\(try PostgresLocation(url: "postgres://stream@[::1]:5433/shows?sslmode=verify-full"))"
                == "postgres://stream@[::1]:5433/shows?sslmode=verify-full")
        #expect("\(try PostgresLocation(url: "postgres://stream@%2Frun%2Fpostgresql/shows"))"
                == "postgres://stream@%2Frun%2Fpostgresql:5432/shows")
    }
}
