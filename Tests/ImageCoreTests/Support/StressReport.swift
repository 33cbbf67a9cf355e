import Foundation

/// Rows for the table `make stress` prints: a test that measures something
/// (kills survived, operations, faults and their outcomes) appends one line
/// to the file `IMGCACHE_STRESS_REPORT` names, if it names one.
enum StressReport {
    /// Appends `check`, `how` and `outcome` as one tab-separated line.
    static func record(_ check: String, how: String, outcome: String) {
        guard let path = ProcessInfo.processInfo.environment["IMGCACHE_STRESS_REPORT"], !path.isEmpty else { return }
        let line =
            [check, how, outcome].map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: "\t") + "\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    }
}
