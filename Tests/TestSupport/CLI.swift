package import Foundation

/// Runs the built `imgcache` executable as a child process, as a user's
/// script would, and captures what it printed.
package enum CLI {
    package struct Result {
        package var stdout: [UInt8]
        package var stderr: String
        package var status: Int32

        package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        package var stdoutLines: [String] { stdoutText.split(separator: "\n").map(String.init) }

        package init(stdout: [UInt8], stderr: String, status: Int32) {
            (self.stdout, self.stderr, self.status) = (stdout, stderr, status)
        }
    }

    /// The executable: next to the test bundle in the build products.
    package static let executable: URL = {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = products.appendingPathComponent("imgcache")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }  // CLI.swift, TestSupport, Tests
        return root.appendingPathComponent(".build/debug/imgcache")
    }()

    /// Runs `imgcache arguments...` (or another `executable`) with the cache
    /// in `cacheDir`, feeding `stdin`; kills it after `timeout` seconds, or
    /// `waitPatience` if longer: the kill only ends a hang, and under a
    /// sanitizer (5 min) a heavy decode or a long run beside the other
    /// suites on two cores can outlast a bound chosen for a plain build.
    package static func run(
        _ arguments: [String], cacheDir: String, stdin: [UInt8] = [], environment: [String: String] = [:],
        timeout: Double = 60, executable: URL = executable
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["IMGCACHE_DIR"] = cacheDir
        // Its scratch directories (a read-only cache's downloads) in the run's, removed with it.
        env["TMPDIR"] = TestRunDirectory.path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Drain both pipes on their own threads so a large output cannot block the child.
        let out = Drain(output.fileHandleForReading), err = Drain(errors.fileHandleForReading)
        input.fileHandleForWriting.write(Data(stdin))
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(max(timeout, waitPatience))
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TimedOut(arguments: arguments)
        }
        process.waitUntilExit()
        return Result(
            stdout: out.wait(), stderr: String(decoding: err.wait(), as: UTF8.self), status: process.terminationStatus)
    }

    /// Starts `imgcache` without waiting, for tests that signal it; its
    /// stderr goes to `stderrPath` (a file it creates) if given.
    package static func start(
        _ arguments: [String], cacheDir: String, stdinPath: String, environment: [String: String] = [:],
        stderrPath: String? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["IMGCACHE_DIR"] = cacheDir
        // Its scratch directories (a read-only cache's downloads) in the run's, removed with it.
        env["TMPDIR"] = TestRunDirectory.path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = FileHandle(forReadingAtPath: stdinPath)
        process.standardOutput = FileHandle.nullDevice
        if let stderrPath {
            guard FileManager.default.createFile(atPath: stderrPath, contents: nil),
                let log = FileHandle(forWritingAtPath: stderrPath)
            else { throw CocoaError(.fileWriteUnknown) }
            process.standardError = log
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    package struct TimedOut: Error, CustomStringConvertible {
        package var arguments: [String]
        package var description: String { "imgcache \(arguments.joined(separator: " ")) did not finish in time" }

        package init(arguments: [String]) {
            self.arguments = arguments
        }
    }

    /// Reads a pipe to its end on a background thread.
    private final class Drain: @unchecked Sendable {
        // Why unchecked: `bytes` is written by the reading thread only, and
        // read by `wait()` only after the semaphore says that thread is done.
        private var bytes: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                bytes = [UInt8](handle.readDataToEndOfFile())
                done.signal()
            }
        }

        func wait() -> [UInt8] {
            done.wait()
            return bytes
        }
    }
}
