import Foundation

/// The processes whose parent is `pid` (from /proc/PID/stat's fourth field): the workers of a server a test
/// started (nginx's, PostgreSQL's), to signal them with it.
func childProcesses(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> Int32? in
        guard let child = Int32(entry),
              let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // "PID (name) STATE PPID ...": the name may hold spaces, so split after its closing parenthesis.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
    }
}
