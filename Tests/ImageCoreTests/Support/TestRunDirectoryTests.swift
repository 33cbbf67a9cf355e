import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A test process killed with SIGKILL runs no deinit and no `atexit`: the
/// directories it made (and the files its servers made outside them) are
/// removed by the next test process's set-up (`TestRunDirectory`), and a
/// live run's never are.
@Suite struct TestRunDirectoryTests {
    static let holdDirectory = "IMGCACHE_TEST_HOLD_DIRECTORY"

    /// A child test process (this bundle, running `holdsADirectoryUntilKilled`,
    /// its `TMPDIR` a directory of this test's) makes a temporary directory
    /// and a file to be removed with its run, and says where; a sweep leaves
    /// them while it lives, and removes both once it is killed. Without the
    /// owner's lock (every run directory taken for abandoned), the first
    /// sweep removes them and this test fails; without the sweep, the second.
    @Test func aKilledTestProcesssDirectoriesAreRemovedByTheNextSetUp() async throws {
        let scratch = try TemporaryDirectory()
        let report = "\(scratch.path)/held"
        let child = try ChildTestProcess.start(
            "holdsADirectoryUntilKilled", in: scratch, environment: [Self.holdDirectory: report])
        defer { LoopbackServices.stop(child) }
        let held = { (try? String(contentsOfFile: report, encoding: .utf8))?.split(separator: "\n").map(String.init) }
        #expect(await waitUntil { held()?.count == 2 || !child.isRunning }, "the child made no directory")
        let paths = try #require(held())
        try #require(paths.count == 2)
        let (directory, outside) = (paths[0], paths[1])
        #expect(directory.hasPrefix(scratch.path + "/"), "\(directory)")

        #expect(TestRunDirectory.removeAbandoned(in: scratch.path).isEmpty, "a live run's directory was removed")
        #expect(FileManager.default.fileExists(atPath: directory) && FileManager.default.fileExists(atPath: outside))

        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let removed = TestRunDirectory.removeAbandoned(in: scratch.path)
        #expect(removed.count == 1, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) outlived its killed test process")
        #expect(!FileManager.default.fileExists(atPath: outside), "\(outside), listed to go with its run, is left")
        #expect(FileManager.default.fileExists(atPath: TestRunDirectory.path), "this run's own directory went")
    }

    /// The child of `aKilledTestProcesssDirectoriesAreRemovedByTheNextSetUp`:
    /// makes a temporary directory and, beside the run directory, a file
    /// listed to go with it (as SeaweedFS's sockets in /tmp); writes both
    /// paths to the file `IMGCACHE_TEST_HOLD_DIRECTORY` names, and waits to
    /// be killed.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment[holdDirectory] != nil,
            "runs only as the child process of aKilledTestProcesssDirectoriesAreRemovedByTheNextSetUp"))
    func holdsADirectoryUntilKilled() throws {
        let report = try #require(ProcessInfo.processInfo.environment[Self.holdDirectory])
        let directory = try TemporaryDirectory()
        let outside = URL(fileURLWithPath: report).deletingLastPathComponent().appendingPathComponent("outside").path
        #expect(FileManager.default.createFile(atPath: outside, contents: nil))
        TestRunDirectory.removeWithRun([outside])
        try "\(directory.path)\n\(outside)\n".write(toFile: report, atomically: true, encoding: .utf8)
        while true { sleep(60) }
    }
}
