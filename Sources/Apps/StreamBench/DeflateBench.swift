import Foundation

/// Item 12: what permessage-deflate (RFC 7692, zlib as every implementation uses it) would buy chat fan-out, measured
/// with Python's zlib on a corpus of chat events (JSON as the live-show server sends them): the bytes of a message
/// compressed on its own (the only form one encoding can share across receivers: no context takeover), and with a
/// context kept per connection (which compresses better, but needs one compression per receiver and zlib's state
/// per connection). The decision it supports is in docs/http.md.
struct DeflateBench {
    let context: BenchContext

    static let script = """
        import json, random, time, tracemalloc, zlib

        random.seed(7)
        words = ("hello everyone what a show tonight love this song lol gg nice play where is that from can you say hi "
                 "to me first time here greetings from berlin the camera looks great audio is a bit low").split()
        names = ["anna", "ben", "chris", "dana", "eli", "fran", "gus", "hana", "ivan", "jo"]

        def event(i):
            kind = random.random()
            if kind < 0.8:
                text = " ".join(random.choice(words) for _ in range(random.randint(2, 12)))
                return {"type": "chat", "id": "m%06d" % i, "user": random.choice(names) + str(random.randint(1, 999)),
                        "name": random.choice(names).title(), "text": text, "at": 1764547200000 + i * 137}
            if kind < 0.9:
                return {"type": "reaction", "kind": random.choice(["heart", "clap", "fire"]),
                        "count": random.randint(1, 50)}
            return {"type": "viewers", "count": random.randint(900, 1100)}

        messages = [json.dumps(event(i), separators=(",", ":")).encode() for i in range(2000)]

        def alone(message):
            # RFC 7692 §7.2.1: deflate, sync flush, drop the final 00 00 FF FF.
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
            return compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)[:-4]

        started = time.perf_counter()
        fresh = [alone(m) for m in messages]
        us_alone = (time.perf_counter() - started) / len(messages) * 1e6
        kept = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
        started = time.perf_counter()
        contextual = [kept.compress(m) + kept.flush(zlib.Z_SYNC_FLUSH)[:-4] for m in messages]
        us_context = (time.perf_counter() - started) / len(messages) * 1e6

        # zlib's state for one connection with context takeover: a compressor and a decompressor, each used once.
        tracemalloc.start()
        states = []
        for _ in range(100):
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
            compressor.compress(messages[0])
            compressor.flush(zlib.Z_SYNC_FLUSH)
            decompressor = zlib.decompressobj(-15)
            decompressor.decompress(alone(messages[0]))
            states.append((compressor, decompressor))
        traced, _ = tracemalloc.get_traced_memory()

        mean = lambda items: sum(map(len, items)) / len(items)
        print(json.dumps({"raw": mean(messages), "noContext": mean(fresh), "context": mean(contextual),
                          "usNoContext": us_alone, "usContext": us_context, "kbPerConnection": traced / 100 / 1024}))
        """

    func run(into report: Report) throws {
        let path = context.file("deflate.py")
        try Self.script.write(toFile: path, atomically: true, encoding: .utf8)
        let log = context.file("deflate.log")
        try ChildProcess.run("python3", [path], logFile: log)
        guard let line = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").last,
              let figures = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double],
              let raw = figures["raw"], let alone = figures["noContext"], let kept = figures["context"] else {
            throw BenchError("the deflate measurement printed nothing usable")
        }
        let section = "11 permessage-deflate, chat events"
        report.record(section, "bytes per message, raw", unit: "B", ours: raw,
                      note: "2000 chat/reaction/viewer events as JSON; zlib level 6, 15-bit window")
        report.record(section, "bytes per message, deflated alone (shareable)", unit: "B", ours: alone)
        report.record(section, "bytes per message, deflated with context (per receiver)", unit: "B", ours: kept)
        report.record(section, "compression per message and receiver, with context", unit: "us",
                      ours: figures["usContext"])
        report.record(section, "zlib state per connection, with context", unit: "KB", ours: figures["kbPerConnection"])
    }
}
