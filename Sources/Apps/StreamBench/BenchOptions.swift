import Foundation

/// Command-line options of stream-bench.
struct BenchOptions {
    static let usage = """
        usage: stream-bench [--quick] [--runs N] [--only LIST] [--stream PATH] [--work DIR] [--cache DIR]
                            [--out PREFIX]
          --quick        smoke mode: one run, small sizes, short durations (~1-2 min)
          --runs N       runs per item; figures are medians (default 3, quick 1)
          --only LIST    comma-separated items: 1 compositor, 2 encoder, 3 broadcast, 4 send, 5 ingest, 6 scaling,
                         7 capture, 8 idle, 9 HTTP file vs nginx, 10 WebSocket fan-out,
                         11 idle WebSockets, 12 permessage-deflate, 13 live show,
                         14 LL-HLS readers vs nginx (static; and nginx-rtmp ingest + HLS + static, the same work),
                         15 WHIP vs RTMP, 16 HMAC-SHA256 vs OpenSSL,
                         17 broadcast paths (RTMP, RTMPS, WHIP, record, RTMP + record, two destinations),
                         18 operations (/metrics scrapes vs nginx, webhooks' CPU, posters vs ffmpeg)
          --stream PATH  the release `stream` executable (default: next to this program)
          --work DIR     scratch directory (default: a new one under /tmp)
          --cache DIR    where generated FLV files are kept (default: bench-results/cache)
          --out PREFIX   also write PREFIX.txt and PREFIX.json
          --ingest PxM   item 5 with P publishers x M players per stream only (e.g. 4x20), for profiling
          --ingest-seconds S  measured seconds per ingest scenario (default 15, quick 6)
        """

    var quick = false
    var runs: Int?
    var only: Set<Int> = Set(1...18)
    var stream: String?
    var work: String?
    var cache = "bench-results/cache"
    var out: String?
    var help = false
    var ingestScenario: (publishers: Int, players: Int)?
    var ingestSeconds: Double?

    init(parsing arguments: [String]) throws {
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--quick": quick = true
            case "--runs":
                guard let number = Int(try value()), number > 0 else { throw BenchError("--runs needs a number") }
                runs = number
            case "--only":
                only = Set(try value().split(separator: ",").compactMap { Int($0) })
            case "--stream": stream = try value()
            case "--work": work = try value()
            case "--cache": cache = try value()
            case "--out": out = try value()
            case "--ingest":
                let parts = try value().split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw BenchError("--ingest needs PxM") }
                ingestScenario = (parts[0], parts[1])
            case "--ingest-seconds":
                guard let seconds = Double(try value()), seconds > 0 else {
                    throw BenchError("--ingest-seconds needs a number")
                }
                ingestSeconds = seconds
            case "--help", "-h": help = true
            default: throw BenchError("unknown option \(arguments[index])\n\(Self.usage)")
            }
            index += 1
        }
    }
}
