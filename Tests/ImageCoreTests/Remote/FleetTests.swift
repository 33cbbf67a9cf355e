import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Machines (cache directories, processes) started together on the same
/// list, sharing one store (Redis; Apache mod_dav or nginx with MKCOL,
/// whose leases are collections made by MKCOL; S3): the lease lets one of them download each URL while
/// the others wait for its upload.
@Suite(.serialized)
struct FleetTests {
    static let redisMissing = "redis-server is not installed (make deps installs it)"
    static let apacheMissing = "apache2 is not installed (make deps installs it)"

    /// A distinct 8×8 PNG per index.
    static func image(_ index: Int) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for pixel in 0..<64 { pixels += [UInt8(index % 256), UInt8(pixel * 4), 7, 255] }
        return try PNGEncoder.encode(pixels, width: 8, height: 8)
    }

    @Test(.enabled(if: LoopbackServices.haveRedis, Comment(rawValue: redisMissing)))
    func sixMachinesSharingRedisDownloadEachURLOnce() throws {
        let redis = try RedisProcess()
        try sixMachinesDownloadEachURLOnce(sharing: redis.url)
    }

    @Test(.enabled(if: LoopbackServices.haveApache, Comment(rawValue: apacheMissing)))
    func sixMachinesSharingAnApacheStoreDownloadEachURLOnce() throws {
        let apache = try ApacheProcess()
        try sixMachinesDownloadEachURLOnce(sharing: apache.url)
    }

    @Test(.enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
    func sixMachinesSharingAnNginxStoreThatMakesCollectionsDownloadEachURLOnce() throws {
        let nginx = try WebDAVRemote(methods: "PUT DELETE MKCOL")
        try sixMachinesDownloadEachURLOnce(sharing: nginx.url)
    }

    @Test(.enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
    func sixMachinesSharingAnS3BucketDownloadEachURLOnce() throws {
        let s3 = try SeaweedFSProcess.shared.get()
        try sixMachinesDownloadEachURLOnce(sharing: "s3://\(try s3.makeBucket("fleet"))", environment: s3.environment)
    }

    /// `extraDownloads`: what a loaded machine may add (a store operation that timed out).
    func sixMachinesDownloadEachURLOnce(
        sharing remote: String, extraDownloads: Int = 3, environment: [String: String] = [:]
    ) throws {
        let count = 30
        let origin = try TestHTTPServer()
        var images: [String: [UInt8]] = [:]
        for index in 0..<count {
            let bytes = try Self.image(index)
            // About 200 ms per answer, as a slow origin's.
            origin.route(
                "/i\(index).png",
                .trickle(bytes, bytesPerSecond: bytes.count * 5, headers: ["Cache-Control": "max-age=3600"]))
            images[origin.url("/i\(index).png")] = bytes
        }
        let work = try TemporaryDirectory()
        let list = "\(work.path)/list.txt"
        try images.keys.sorted().joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let machines = try (0..<6).map { _ in try TemporaryDirectory() }
        let logs = machines.indices.map { "\(work.path)/machine\($0).log" }
        // Under a sanitizer a process can stall for many seconds (see
        // `upperTimeBoundsHold`), long enough for a holder's 6 s lease to run
        // out between renewals and another machine to take it over, as it
        // should. That is the killed-holder tests' subject; here the lease
        // outlives any stall.
        let lease = upperTimeBoundsHold ? "" : "|lease=60000"
        let processes = try machines.indices.map { index in
            // Patient store timeouts: on a loaded machine (CI, two cores) a
            // store request that timed out disabled the store for that machine,
            // which then downloaded all 30 itself. The leases are tested here;
            // the stores' speed is `make bench`'s.
            try CLI.start(
                ["prefetch", "-v", "--remote-storage", remote + "|timeout=5000|connect-timeout=2000" + lease, list],
                cacheDir: machines[index].path, stdinPath: list, environment: environment, stderrPath: logs[index])
        }
        let deadline = Date().addingTimeInterval(120)
        for process in processes {
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let gets = images.keys.map { origin.requestCount(for: String($0.dropFirst(origin.url("").count))) }
        // Each URL once, and a few more (above).
        #expect(
            gets.reduce(0, +) <= count + extraDownloads,
            "\(gets.reduce(0, +)) GETs for \(count) URLs; \(Self.leaseSummary(logs))")
        for machine in machines {
            let run = try CLI.run(
                ["prefetch", "--json", "--offline", "--no-remote-storage", list], cacheDir: machine.path)
            #expect(run.status == 0, "\(run.stderr)")
            let served = records(run)
            #expect(served.count == count)
            for record in served {
                let path = try #require(record["path"] as? String)
                let url = try #require(record["url"] as? String)
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == images[url], "\(url)")
            }
        }
    }

    /// What each machine's `-v` said of leases and stores, counted, for a
    /// failure message that tells a race from a lease that ran out or a store that failed.
    static func leaseSummary(_ logs: [String]) -> String {
        let events = [
            "took the download lease", "gave up waiting", "remote storage failed", "holds no download leases",
        ]
        return logs.enumerated().map { index, log in
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n")
            let counts = events.map { event in "\(lines.filter { $0.contains(event) }.count) \(event)" }
            let failures = lines.filter { $0.contains("remote storage failed") }.prefix(2)
            return "machine \(index): " + (counts + failures.map(String.init)).joined(separator: ", ")
        }.joined(separator: "; ")
    }

    @Test(.enabled(if: LoopbackServices.haveRedis, Comment(rawValue: redisMissing)))
    func aKilledLeaseholderInRedisCostsTheOthersSeconds() throws {
        let redis = try RedisProcess()
        let connection = try redis.connect()
        try aKilledLeaseholderCostsTheOthersSeconds(sharing: redis.url) { hash in
            let leaseKey = Array("imgcache:\(RemoteObject.layoutVersion):lease:\(hash)".utf8)
            return try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(1)
        }
    }

    @Test(.enabled(if: LoopbackServices.haveApache, Comment(rawValue: apacheMissing)))
    func aKilledLeaseholderInAnApacheStoreCostsTheOthersSeconds() throws {
        let apache = try ApacheProcess()
        try aKilledLeaseholderCostsTheOthersSeconds(sharing: apache.url) { hash in
            FileManager.default.fileExists(atPath: apache.objectPath("\(hash).lease.d/holder"))
        }
    }

    @Test(.enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
    func aKilledLeaseholderInAnS3BucketCostsTheOthersSeconds() throws {
        let s3 = try SeaweedFSProcess.shared.get()
        let bucket = try s3.makeBucket("dead")
        try aKilledLeaseholderCostsTheOthersSeconds(sharing: "s3://\(bucket)", environment: s3.environment) { hash in
            s3.object(bucket, "imgcache/\(RemoteObject.layoutVersion)/\(hash).lease") != nil
        }
    }

    /// The leaseholder is SIGKILLed mid-download, with default settings:
    /// its lease (6 s, renewed every 2 s while it downloaded) is no longer
    /// renewed, and the other machines, which followed its renewals, take
    /// it over when it runs out and finish within 10 s of the kill (man
    /// page, REMOTE STORAGE).
    func aKilledLeaseholderCostsTheOthersSeconds(
        sharing store: String, environment: [String: String] = [:], leaseExists: (String) throws -> Bool
    ) throws {
        let origin = try TestHTTPServer()
        let bytes = try Self.image(1)
        // The holder's download would take a minute; the next one is quick.
        origin.route(
            "/slow.png",
            sequence: [
                .trickle(bytes, bytesPerSecond: max(1, bytes.count / 60), headers: ["Cache-Control": "max-age=3600"]),
                .ok(bytes),
            ])
        // Each machine's cache lives as long as its process.
        let caches = try (0..<3).map { _ in try TemporaryDirectory() }
        let holder = try CLI.start(
            ["fetch", "--remote-storage", store, origin.url("/slow.png")], cacheDir: caches[0].path,
            stdinPath: "/dev/null", environment: environment)
        let hash = CacheKey(origin.url("/slow.png")).hash
        var leased = false
        for _ in 0..<1500 where !leased {
            leased = try leaseExists(hash)
            if !leased { usleep(20_000) }
        }
        #expect(leased, "the first machine took no lease")
        // Killed mid-download: once the origin has its request, and a
        // renewal or two later, so the others follow a lease in use.
        for _ in 0..<500 where origin.requestCount(for: "/slow.png") == 0 { usleep(20_000) }
        #expect(origin.requestCount(for: "/slow.png") == 1, "the first machine did not start its download")
        // Real time, kept (as the waits below): the holder is another process
        // renewing on its own clock, and what is measured is seconds after a
        // real SIGKILL. Past its first renewal (every 2 s), so the others
        // follow a lease that was renewed, not a fresh one.
        usleep(2_500_000)
        let logs = try TemporaryDirectory()
        let logPaths = (1..<caches.count).map { "\(logs.path)/machine\($0).log" }
        let others = try zip(caches.dropFirst(), logPaths).map { cache, log in
            try CLI.start(
                ["fetch", "-v", "--remote-storage", store, origin.url("/slow.png")], cacheDir: cache.path,
                stdinPath: "/dev/null", environment: environment, stderrPath: log)
        }
        // The others start (tens of milliseconds) and find the lease held.
        usleep(300_000)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let killed = Date()
        for other in others {
            while other.isRunning && Date().timeIntervalSince(killed) < 60 { usleep(10_000) }
            if other.isRunning { kill(other.processIdentifier, SIGKILL) }
            other.waitUntilExit()
            #expect(other.terminationStatus == 0)
        }
        let elapsed = Date().timeIntervalSince(killed)
        // What the man page's "within 10 s of the kill" rests on, checked as
        // what happened rather than when (the others are processes on two
        // cores shared with the suites beside this one, and 8 s of the 10
        // are the lease and its margin): one of the others took the dead
        // holder's lease over once it ran out, and none gave up waiting.
        let said = logPaths.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        #expect(
            said.filter { $0.contains("took the download lease") }.count == 1
                && !said.contains { $0.contains("gave up waiting") },
            "\(said)")
        // A bound that only a hang reaches (the lease, its margin and a poll
        // are 8 s); a sanitizer's run is given none.
        if upperTimeBoundsHold { #expect(elapsed <= 40, "the others finished \(elapsed) s after the kill") }
        // The holder's GET, and one more by whichever of the others took the lease over.
        #expect(origin.requestCount(for: "/slow.png") == 2)
    }
}
