import Foundation
import TestSupport
import Testing

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// A single HEIC image whose libde265 threads cannot start (a pids limit
/// reached) is decoded on the calling thread, to the same bytes. libde265
/// 1.0.x says its threads started whether or not they did, and with none
/// waits for its rows forever; `imgcache_hevc_start_threads` tries a thread
/// of its own first, and `HEVCPicture.decode` decodes alone when it cannot.
/// The limit is a pids cgroup (v1) holding a child test process (this
/// bundle, running `decodesWithNoThreadToSpare`), so no other test loses a
/// thread; a thread limit (`RLIMIT_NPROC`) does not bind root.
@Suite(.enabled(if: HEIFSamples.toolsPresent, "needs heif-enc and heif-convert (libheif-examples)"))
struct HEVCThreadLimitTests {
    static let pids = "/sys/fs/cgroup/pids"
    static let childsDirectory = "IMGCACHE_TEST_NO_THREAD_TO_SPARE"

    /// The cgroup a child process puts itself in.
    static func group(of pid: Int32) -> String { "\(pids)/imgcache-test-\(pid)" }

    @Test(
        .enabled(
            if: FileManager.default.isWritableFile(atPath: "\(pids)/cgroup.procs"),
            "needs the pids cgroup (v1) at /sys/fs/cgroup/pids, writable (root)"))
    func anImageWhoseThreadsCannotStartIsDecodedOnTheCallingThread() async throws {
        let work = try TemporaryDirectory()
        let child = try ChildTestProcess.start(
            "decodesWithNoThreadToSpare", in: work, environment: [Self.childsDirectory: work.path])
        defer {
            LoopbackServices.stop(child)
            // Waited for, so Foundation lets the Process go (LeakSanitizer saw it alive at exit).
            child.waitUntilExit()
            try? FileManager.default.removeItem(atPath: Self.group(of: child.processIdentifier))
        }
        let ended = await waitUntil { !child.isRunning }
        #expect(ended, "the decode never ended with no thread to start (libde265 waiting for workers it has not)")
        guard ended else { return }
        let verdict = try String(contentsOfFile: "\(work.path)/verdict", encoding: .utf8)
        #expect(verdict == "same bytes, no thread started", "\(verdict)")
    }

    /// The child of `anImageWhoseThreadsCannotStartIsDecodedOnTheCallingThread`:
    /// the thumbnail on one thread, then on four in a cgroup that lets this
    /// process start no thread; writes what it found to `verdict` in the
    /// directory `IMGCACHE_TEST_NO_THREAD_TO_SPARE` names.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment[childsDirectory] != nil,
            "runs only as the child process of anImageWhoseThreadsCannotStartIsDecodedOnTheCallingThread"))
    func decodesWithNoThreadToSpare() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.childsDirectory])
        let bars = try HEVCThumbnailTests()
        let heic = try HEIFSamples.encode(try bars.colourBars(), options: "-q 50", in: bars.work)
        let items = try #require(HEIFItems(heic))
        let size = (width: 100, height: 68)
        let plan = try #require(HEVCThumbnail(heic, items: items, size: size), "libheif's path was taken")
        let one = try #require(plan.thumbnail(heic, size: size, workers: .init(count: 1)))
        let group = Self.group(of: getpid())
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
        try Self.write("1", to: "\(group)/pids.max")  // below what it holds: no task more
        try Self.write(String(getpid()), to: "\(group)/cgroup.procs")
        var probe = pthread_t()
        let refused = pthread_create(&probe, nil, { _ in nil }, nil)
        if refused == 0 { pthread_join(probe, nil) }
        let many = plan.thumbnail(heic, size: size, workers: .init(count: 4))
        try Self.write(String(getpid()), to: "\(Self.pids)/cgroup.procs")
        try FileManager.default.removeItem(atPath: group)
        let verdict =
            if refused == 0 {
                "a thread started in the cgroup"
            } else if let many {
                many == one ? "same bytes, no thread started" : "other bytes than one thread's"
            } else {
                "no thumbnail"
            }
        try verdict.write(toFile: "\(directory)/verdict", atomically: true, encoding: .utf8)
    }

    static func write(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
