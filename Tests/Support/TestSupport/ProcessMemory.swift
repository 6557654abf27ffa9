import Foundation

/// This process's memory as Linux reports it in /proc/self/status, to check that hostile input allocates little.
public enum ProcessMemory {
    /// Resident set size now (VmRSS), in bytes; 0 where /proc is missing.
    public static var residentBytes: Int { field("VmRSS:") }

    /// The highest resident set size so far (VmHWM), in bytes; 0 where /proc is missing.
    public static var peakResidentBytes: Int { field("VmHWM:") }

    /// Another process's resident set size now, in bytes; 0 when it is gone.
    public static func residentBytes(ofProcess pid: Int32) -> Int { field("VmRSS:", process: "\(pid)") }

    /// Another process's highest resident set size so far, in bytes; 0 when it is gone.
    public static func peakResidentBytes(ofProcess pid: Int32) -> Int { field("VmHWM:", process: "\(pid)") }

    private static func field(_ name: String, process: String = "self") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.dropFirst(name.count).split { $0 == " " || $0 == "\t" }  // "VmRSS:\t  1234 kB"
            let kilobytes = fields.first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
