package import Foundation

/// This test bundle run again as a child process, for a test whose subject
/// is another process: one killed with SIGKILL, or one in a cgroup.
package enum ChildTestProcess {
    /// Starts the bundle running only the test `filter` names (one enabled
    /// by a variable in `environment`), its output discarded; its run
    /// directory (`TestRunDirectory`) in `directory`, so it goes with the
    /// caller's even when the child is killed.
    package static func start(
        _ filter: String, in directory: TemporaryDirectory, environment: [String: String]
    ) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging(
            environment.merging(["TMPDIR": directory.path + "/"]) { $1 }
        ) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        return child
    }
}
