import Foundation
import TestSupport
import Testing

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// A leaseholder that stalls (SIGSTOP) mid-download and wakes after its
/// lease ran out and another machine took it over: the stall costs one
/// extra origin GET, never a wrong entry (man page, REMOTE STORAGE), and
/// no lease is left behind.
@Suite(.serialized)
struct StalledLeaseholderTests {
    @Test(.enabled(if: LoopbackServices.haveRedis, Comment(rawValue: FleetTests.redisMissing)))
    func inRedis() throws {
        let redis = try RedisProcess()
        let connection = try redis.connect()
        try aStalledHolderCostsOneGET(sharing: redis.url) { hash in
            let leaseKey = Array("imgcache:\(RemoteObject.layoutVersion):lease:\(hash)".utf8)
            return try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(1)
        }
    }

    @Test(.enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
    func inAnS3Bucket() throws {
        let s3 = try SeaweedFSProcess.shared.get()
        let bucket = try s3.makeBucket("stalled")
        try aStalledHolderCostsOneGET(sharing: "s3://\(bucket)", environment: s3.environment) { hash in
            s3.object(bucket, "imgcache/\(RemoteObject.layoutVersion)/\(hash).lease") != nil
        }
    }

    func aStalledHolderCostsOneGET(
        sharing store: String, environment: [String: String] = [:], leaseExists: (String) throws -> Bool
    ) throws {
        let origin = try TestHTTPServer()
        let bytes = try FleetTests.image(2)
        // The holder's answer is held until it is stopped, so it is
        // mid-download then however late this test acts (a 4 s answer had to
        // be caught within its 4 s); the next machine's is quick; a third
        // request would be a second extra.
        let holderAnswer = DispatchSemaphore(value: 0)
        defer { holderAnswer.signal() }
        let answers = Counter()
        origin.route("/stalled.png") { _ in
            switch answers.add() {
            case 1:
                holderAnswer.wait()
                return .ok(bytes)
            case 2: return .ok(bytes)
            default: return .status(500)
            }
        }
        let url = origin.url("/stalled.png")
        let hash = CacheKey(url).hash
        // A 1.5 s lease renewed every 0.5 s: short, so the test is. Patient
        // store requests (5 s; a lease's get 10 s anyway): the next machine's
        // upload timed out at the default second (SeaweedFS on a loaded machine
        // has taken seconds, c102b57) would leave the third nothing to be served.
        let shared = "\(store)|lease=1500|timeout=5000"
        let work = try TemporaryDirectory()
        let caches = try (0..<3).map { _ in try TemporaryDirectory() }
        let outputs = (0..<2).map { "\(work.path)/out\($0).png" }
        let holder = try CLI.start(
            ["fetch", "--remote-storage", shared, "-o", outputs[0], url], cacheDir: caches[0].path,
            stdinPath: "/dev/null", environment: environment)
        defer {
            // Waited for, so Foundation lets the Process go (LeakSanitizer saw it alive at exit).
            if holder.isRunning { kill(holder.processIdentifier, SIGKILL) }
            holder.waitUntilExit()
        }
        #expect(try poll { try leaseExists(hash) && origin.requestCount(for: "/stalled.png") == 1 })
        kill(holder.processIdentifier, SIGSTOP)
        // Every thread stopped before the answer goes: kill() only queues the
        // stop, and a holder's thread still running on the other core took the
        // answer, stored and uploaded it (on two loaded cores the next machine
        // was served from the store: no takeover, one GET).
        #expect(try poll { Self.isStopped(holder.processIdentifier) }, "the holder never stopped")
        holderAnswer.signal()  // to a stopped holder: read once it is woken
        // The lease runs out unrenewed; the next machine waits for it, takes it over and downloads.
        let next = try CLI.run(
            ["fetch", "-v", "--remote-storage", shared, "-o", outputs[1], url], cacheDir: caches[1].path,
            environment: environment, timeout: 120)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("took the download lease"), "\(next.stderr)")
        kill(holder.processIdentifier, SIGCONT)
        holder.waitUntilExit()
        #expect(holder.terminationStatus == 0)
        #expect(origin.requestCount(for: "/stalled.png") == 2)
        // The woken holder neither freed the next machine's lease nor left its own.
        #expect(try !leaseExists(hash))
        // What the store holds is whole and right: a third machine is served from it.
        let third = try CLI.run(
            ["fetch", "--json", "--remote-storage", shared, url], cacheDir: caches[2].path, environment: environment)
        let record = try #require(records(third).first, "\(third.stderr)")
        #expect(record["result"] as? String == "remote")
        #expect(origin.requestCount(for: "/stalled.png") == 2)
        for output in outputs + [try #require(record["path"] as? String)] {
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == bytes, "\(output)")
        }
    }

    /// Whether every thread of `pid` is stopped (state `T` in its
    /// `/proc/PID/task/TID/stat`).
    static func isStopped(_ pid: Int32) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return !tasks.isEmpty
            && tasks.allSatisfy { task in
                guard let stat = procFileText("/proc/\(pid)/task/\(task)/stat"), let end = stat.lastIndex(of: ")")
                else { return false }
                return stat[stat.index(after: end)...].hasPrefix(" T")
            }
    }

    /// Polls `condition` every 20 ms for up to 60 s.
    private func poll(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<3000 {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}
