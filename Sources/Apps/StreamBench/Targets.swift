/// The targets, checked against the medians in the report.
enum Targets {
    /// The broadcaster's resident-memory ceiling (the iOS broadcast extension is killed past ~50 MB). Unlike the
    /// other targets it is a gate: a run that measures more fails (see ``evaluate(_:)``).
    static let broadcastPeakRSSLimitMB = 50.0
    /// Item 17's gate: every broadcast path, every run, stays this far under the extension's ceiling, so that no
    /// change brings one back near it unnoticed (issue 36).
    static let broadcastPathPeakRSSGateMB = 45.0
    /// Item 17's target for every path (issue 36); reported, not a gate.
    static let broadcastPathPeakRSSTargetMB = 42.0

    /// Adds the targets to the report.
    /// - Returns: the gates that were missed, one line each: the run must fail loudly when any is returned.
    @discardableResult
    static func evaluate(_ report: Report) -> [String] {
        var missedGates: [String] = []
        let rows = report.rows
        func find(_ prefix: String, _ metric: String) -> Report.Row? {
            rows.first { $0.section.hasPrefix(prefix) && $0.metric == metric }
        }
        let f = Report.format

        if let rss = find("3 broadcast 720p30", "peak RSS") {
            let limit = broadcastPeakRSSLimitMB
            // Every run counts, not just the median: one run over the ceiling is a process the extension loses.
            let worst = rss.ours.max()
            report.target("broadcast 720p30 + PiP peak RSS <= 50 MB", met: worst.map { $0 <= limit },
                          detail: "\(f(rss.oursMedian)) MB, worst run \(f(worst)) MB (ffmpeg \(f(rss.peerMedian)) MB)")
            if let worst, worst > limit {
                missedGates.append("the 720p30 + PiP broadcast peaked at \(f(worst)) MB of RSS, over the "
                                       + "\(f(limit)) MB ceiling")
            }
        } else {
            report.target("broadcast 720p30 + PiP peak RSS <= 50 MB", met: nil, detail: "item 3 did not run")
        }
        for rss in rows where rss.section.hasPrefix("17 broadcast paths") && rss.metric == "peak RSS" {
            let path = rss.section.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let worst = rss.ours.max()
            let gate = broadcastPathPeakRSSGateMB
            let target = broadcastPathPeakRSSTargetMB
            report.target("broadcast path \(path): peak RSS <= \(f(target)) MB (gate \(f(gate)) MB, every run)",
                          met: rss.oursMedian.map { $0 <= target },
                          detail: "\(f(rss.oursMedian)) MB, worst run \(f(worst)) MB (\(rss.peerName) "
                            + "\(f(rss.peerMedian)) MB)")
            if let worst, worst > gate {
                missedGates.append("the broadcast path \(path) peaked at \(f(worst)) MB of RSS, over the "
                                       + "\(f(gate)) MB gate")
            }
        }
        if let cpu = find("3 broadcast 720p30", "CPU, share of one core") {
            report.target("broadcast 720p30 CPU <= 0.85x ffmpeg's", met: cpu.ratioMedian.map { $0 <= 0.85 },
                          detail: "\(f(cpu.oursMedian)) % vs \(f(cpu.peerMedian)) % of a core, ratio "
                            + "\(f(cpu.ratioMedian))")
        } else {
            report.target("broadcast 720p30 CPU <= 0.85x ffmpeg's", met: nil, detail: "item 3 did not run")
        }
        // The bigger shapes must keep real time on this 2-core machine: what the encoder cannot keep up with is
        // dropped before it, so the dropped frames say it (1 % allows a hiccup of the machine, not a lasting lag).
        for shape in ["1080p30", "720p60"] {
            guard let dropped = find("3 broadcast \(shape)", "frames dropped"),
                  let expected = find("3 broadcast \(shape)", "frames encoded")?.peerMedian, expected > 0
            else { continue }
            let worst = dropped.ours.max()
            report.target("broadcast \(shape) + PiP in real time: <= 1 % of frames dropped (every run)",
                          met: worst.map { $0 <= expected / 100 },
                          detail: "median \(f(dropped.oursMedian)), worst \(f(worst)) of \(f(expected)) frames")
        }
        if let latency = find("3 broadcast 720p30", "capture-to-socket latency p99") {
            report.target("capture-to-socket latency p99 <= 50 ms", met: latency.oursMedian.map { $0 <= 50 },
                          detail: "\(f(latency.oursMedian)) ms")
        } else {
            report.target("capture-to-socket latency p99 <= 50 ms", met: nil,
                          detail: "item 3 did not run (or the session reported no latency)")
        }
        if let share = find("6 pipeline 720p30", "non-encoder share of pipeline CPU") {
            report.target("non-encoder work <= 10% of total CPU (720p30 pipeline)",
                          met: share.oursMedian.map { $0 <= 10 }, detail: "\(f(share.oursMedian)) %")
        }
        for height in [720, 1080] {
            if let overlay = find("1 compositor \(height)p", "PiP, new camera frame each frame") {
                let speedup = overlay.ratioMedian.map { 1 / $0 }
                report.target("compositor >= 3x faster than ffmpeg overlay at \(height)p",
                              met: speedup.map { $0 >= 3 },
                              detail: "\(f(overlay.oursMedian)) us vs \(f(overlay.peerMedian)) us net per frame: "
                                + "\(f(speedup))x")
            }
            if let copy = find("1 compositor \(height)p", "PiP, new camera frame vs memcpy") {
                report.target("compositor within 3x of memcpy at \(height)p", met: copy.ratioMedian.map { $0 <= 3 },
                              detail: "\(f(copy.oursMedian)) us vs memcpy \(f(copy.peerMedian)) us per frame: "
                                + "\(f(copy.ratioMedian))x")
            }
        }
        if let files = find("8 HTTP small file", "requests per second") {
            report.target("HTTP small file with keep-alive >= 0.8x nginx's requests/s",
                          met: files.ratioMedian.map { $0 >= 0.8 },
                          detail: "\(f(files.oursMedian)) vs \(f(files.peerMedian)) req/s, ratio "
                            + "\(f(files.ratioMedian))")
        }
        if let rate = find("9 WebSocket fan-out", "messages delivered per second"),
           let p99 = find("9 WebSocket fan-out", "delivery latency p99") {
            report.target("WebSocket fan-out 1 to 1000: >= 100,000 messages/s delivered, p99 <= 50 ms",
                          met: rate.oursMedian.flatMap { rate in p99.oursMedian.map { rate >= 100_000 && $0 <= 50 } },
                          detail: "\(f(rate.oursMedian)) msg/s, p99 \(f(p99.oursMedian)) ms")
        }
        if let idle = find("10 idle WebSockets", "resident memory per idle WebSocket") {
            report.target("<= 16 KB resident memory per idle WebSocket (10,000 open)",
                          met: idle.oursMedian.map { $0 <= 16 }, detail: "\(f(idle.oursMedian)) KB")
        }
        for row in rows where row.section.hasPrefix("5 ingest") && row.metric == "server CPU per delivered Mbit" {
            let stalls = find(row.section, "players > 1 s behind or failed")
            let stalled = (stalls?.ours.max() ?? 0) > 0
            report.target("\(row.section.dropFirst(2)): relay CPU/Mbit <= nginx-rtmp's, no stalls",
                          met: row.ratioMedian.map { $0 <= 1 && !stalled },
                          detail: "\(f(row.oursMedian)) vs \(f(row.peerMedian)) ms/Mbit (ratio \(f(row.ratioMedian))), "
                            + "players behind or failed: ours \(f(stalls?.oursMedian)), nginx \(f(stalls?.peerMedian))")
        }
        if let memory = find("5 ingest 4 pub x 20 players", "server peak RSS") {
            report.target("ingest 4 pub x 20 players: peak RSS <= 1.25x nginx-rtmp's",
                          met: memory.ratioMedian.map { $0 <= 1.25 },
                          detail: "\(f(memory.oursMedian)) vs \(f(memory.peerMedian)) MB "
                            + "(ratio \(f(memory.ratioMedian)))")
        }
        for row in rows where row.section.hasPrefix("13 live show") && row.metric == "delivery latency p99" {
            let lost = find(row.section, "messages lost")
            let memory = find(row.section, "server RSS per watcher")
            report.target("\(row.section.dropFirst(3)): delivery p99 <= 100 ms", met: row.oursMedian.map { $0 <= 100 },
                          detail: "\(f(row.oursMedian)) ms")
            report.target("\(row.section.dropFirst(3)): 0 messages lost", met: lost.map { ($0.ours.max() ?? 1) == 0 },
                          detail: "\(f(lost?.oursMedian)) lost")
            report.target("\(row.section.dropFirst(3)): <= 20 KB of server RSS per watcher",
                          met: memory?.oursMedian.map { $0 <= 20 }, detail: "\(f(memory?.oursMedian)) KB")
        }
        if let cpu = find("14 LL-HLS", "server CPU, share of one core") {
            let section = cpu.section
            let serving = find(section, "server CPU for the readers (above that)")
            report.target("\(section.dropFirst(3)): stream serve CPU <= nginx's serving the same files",
                          met: cpu.ratioMedian.map { $0 <= 1 },
                          detail: "\(f(cpu.oursMedian)) % vs \(f(cpu.peerMedian)) % of a core "
                            + "(ratio \(f(cpu.ratioMedian)); ours includes the ingest and packaging, nginx's does "
                            + "not); without them \(f(serving?.oursMedian)) % (ratio \(f(serving?.ratioMedian)))")
            let rss = find(section, "server peak RSS")
            report.target("\(section.dropFirst(3)): stream serve peak RSS <= 100 MB",
                          met: rss?.oursMedian.map { $0 <= 100 }, detail: "\(f(rss?.oursMedian)) MB")
            let delay = find(section, "part at a held reader after its last frame was sent, p99")
            report.target("\(section.dropFirst(3)): a part reaches a held reader <= 50 ms after its last frame (p99)",
                          met: delay?.oursMedian.map { $0 <= 50 }, detail: "p99 \(f(delay?.oursMedian)) ms")
        }
        // Issue 33's operations figures, when item 18 ran.
        let operations = OperationsBench.section
        for (metric, limit, text) in [
            ("server CPU at 200 /metrics scrapes/s, over idle", 1.0, "/metrics at 200 scrapes/s <= 1 % of a core"),
            ("webhooks' CPU at 50 events/s", 1.0, "webhooks at 50 events/s add <= 1 % of a core"),
            ("poster over HTTP: after the 10 s refresh (a decode)", 30.0, "a poster that decodes (720p) <= 30 ms"),
            ("poster over HTTP: cached, p50", 1.0, "a cached poster <= 1 ms"),
        ] {
            guard let row = find(operations, metric) else { continue }
            report.target(text, met: row.oursMedian.map { $0 <= limit },
                          detail: "\(f(row.oursMedian))" + (row.peerMedian.map { " (\(row.peerName) \(f($0)))" } ?? ""))
        }
        return missedGates
    }
}
