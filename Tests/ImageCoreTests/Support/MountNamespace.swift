import Foundation
import TestSupport

/// Runs a shell script in a private mount namespace, where it may mount a
/// small tmpfs or a read-only bind mount that vanish when it exits, so a
/// test can fill a disk or lose write access without touching the machine.
/// As root this is `unshare -m`; otherwise `unshare -r -m` (a user
/// namespace), which some kernels forbid: then `isAvailable` is false.
enum MountNamespace {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// `key=value` lines the script printed, for its checks.
        var values: [String: String] {
            var values: [String: String] = [:]
            for line in stdout.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return values
        }
    }

    /// Whether this machine lets us make such a namespace and mount in it.
    static let isAvailable: Bool = {
        let probe = try? run(
            "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && umount \"$d\"; s=$?; rmdir \"$d\"; exit $s")
        return probe?.status == 0
    }()

    /// Runs `script` with `sh -e`; `environment` adds variables (paths, URLs)
    /// and `IMGCACHE` is always the built executable. A script runs dozens
    /// of processes one after another: under a sanitizer, beside the
    /// other suites, DiskFullTests' took over 120 s, so a hang is caught
    /// there at 15 min.
    static func run(
        _ script: String, environment: [String: String] = [:], timeout: Double = upperTimeBoundsHold ? 120 : 900
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = (geteuid() == 0 ? ["-m"] : ["-r", "-m"]) + ["/bin/sh", "-c", script]
        var env = ProcessInfo.processInfo.environment
        env["IMGCACHE"] = CLI.executable.path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Small outputs only (checks print key=value lines), so reading after exit cannot block.
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CLI.TimedOut(arguments: ["(namespace script)"])
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
