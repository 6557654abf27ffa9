import Foundation

/// Collects figures across runs and prints them as one table: ours, the peer's, and the ratio, each the median of
/// the runs (the ratio is the median of per-run ratios, so both sides of a ratio come from the same run).
final class Report {
    struct Row {
        var section: String
        var metric: String
        var unit: String
        var peerName: String
        var ours: [Double] = []
        var peer: [Double] = []
        var ratios: [Double] = []
        var note = ""

        var oursMedian: Double? { Measure.median(ours) }
        var peerMedian: Double? { Measure.median(peer) }
        var ratioMedian: Double? { Measure.median(ratios) }
    }

    struct Target {
        var text: String
        var met: Bool?
        var detail: String
    }

    private(set) var rows: [Row] = []
    private(set) var targets: [Target] = []
    private(set) var notes: [String] = []

    /// Adds one run's figures for a metric (either side may be missing).
    func record(_ section: String, _ metric: String, unit: String, ours: Double?, peer: Double? = nil,
                peerName: String = "", note: String = "") {
        let index: Int
        if let found = rows.firstIndex(where: { $0.section == section && $0.metric == metric }) {
            index = found
        } else {
            rows.append(Row(section: section, metric: metric, unit: unit, peerName: peerName))
            index = rows.count - 1
        }
        if let ours { rows[index].ours.append(ours) }
        if let peer { rows[index].peer.append(peer) }
        if let ours, let peer, peer != 0 { rows[index].ratios.append(ours / peer) }
        if !note.isEmpty { rows[index].note = note }
        if !peerName.isEmpty { rows[index].peerName = peerName }
    }

    /// The row for a metric, if recorded.
    func row(_ section: String, _ metric: String) -> Row? {
        rows.first { $0.section == section && $0.metric == metric }
    }

    /// States a target and whether it is met.
    func target(_ text: String, met: Bool?, detail: String) {
        targets.append(Target(text: text, met: met, detail: detail))
    }

    /// Adds a free-form line under the table (load, versions, what was skipped).
    func note(_ text: String) {
        notes.append(text)
    }

    static func format(_ value: Double?) -> String {
        guard let value else { return "-" }
        let magnitude = abs(value)
        if magnitude == 0 { return "0" }
        if magnitude >= 1000 { return String(format: "%.0f", value) }
        if magnitude >= 100 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        if magnitude >= 0.01 { return String(format: "%.3f", value) }
        return String(format: "%.2e", value)
    }

    /// The table, targets and notes as text.
    func text(title: String) -> String {
        var lines = [title, ""]
        let header = ["item", "metric", "unit", "ours", "peer", "peer value", "ours/peer", "runs"]
        var table: [[String]] = [header]
        for row in rows {
            table.append([row.section, row.metric, row.unit, Self.format(row.oursMedian), row.peerName,
                          Self.format(row.peerMedian), row.ratioMedian.map { String(format: "%.2f", $0) } ?? "-",
                          "\(max(row.ours.count, row.peer.count))"])
        }
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for (index, cells) in table.enumerated() {
            let padded = cells.enumerated().map { column, cell in
                column >= 3 && column != 4 ? String(repeating: " ", count: widths[column] - cell.count) + cell
                    : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            lines.append(padded.joined(separator: "  "))
            if index == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        let notedRows = rows.filter { !$0.note.isEmpty }
        if !notedRows.isEmpty {
            lines.append("")
            for row in notedRows { lines.append("* \(row.section) / \(row.metric): \(row.note)") }
        }
        if !targets.isEmpty {
            lines.append("")
            lines.append("Targets:")
            for target in targets {
                let mark = target.met.map { $0 ? "MET   " : "MISSED" } ?? "n/a   "
                lines.append("  [\(mark)] \(target.text): \(target.detail)")
            }
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append(contentsOf: notes.map { "- \($0)" })
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every figure of every run, as JSON.
    func json(title: String) -> Data {
        let object: [String: Any] = [
            "title": title,
            "rows": rows.map { row -> [String: Any] in
                var entry: [String: Any] = [
                    "item": row.section, "metric": row.metric, "unit": row.unit, "peer": row.peerName,
                    "ours": row.ours, "peerValues": row.peer, "ratios": row.ratios, "note": row.note,
                ]
                entry["oursMedian"] = row.oursMedian
                entry["peerMedian"] = row.peerMedian
                entry["ratioMedian"] = row.ratioMedian
                return entry
            },
            "targets": targets.map { ["text": $0.text, "met": $0.met as Any, "detail": $0.detail] },
            "notes": notes,
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}
