import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Machines (cache directories, processes) started together on the same
/// list, sharing one store (Redis, or Apache mod_dav, which honours
/// conditional PUT): the lease lets one of them download each URL while
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
        // Apache checks If-None-Match before writing, not atomically with the
        // write: PUTs racing within a millisecond or two can both win, and the
        // read-back after the PUT catches most, not all (30–34 GETs in 10 runs).
        try sixMachinesDownloadEachURLOnce(sharing: apache.url, extraDownloads: 6)
    }

    /// `extraDownloads`: what a loaded machine may add (a store operation that timed out).
    func sixMachinesDownloadEachURLOnce(sharing remote: String, extraDownloads: Int = 3) throws {
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
        let processes = try machines.map { machine in
            // Patient store timeouts: on a loaded machine (CI, two cores) a
            // store request that timed out disabled the store for that machine,
            // which then downloaded all 30 itself. The leases are tested here;
            // the stores' speed is `make bench`'s.
            try CLI.start(
                ["prefetch", "--remote-storage", remote + "|timeout=5000|connect-timeout=2000", list],
                cacheDir: machine.path, stdinPath: list)
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
        #expect(gets.reduce(0, +) <= count + extraDownloads, "\(gets.reduce(0, +)) GETs for \(count) URLs")
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

    @Test(.enabled(if: LoopbackServices.haveRedis, Comment(rawValue: redisMissing)))
    func aKilledLeaseholderInRedisDelaysTheOthersByAtMostTheLease() throws {
        let redis = try RedisProcess()
        let connection = try redis.connect()
        try aKilledLeaseholderDelaysTheOthersByAtMostTheLease(sharing: redis.url) { hash in
            let leaseKey = Array("imgcache:\(RemoteObject.layoutVersion):lease:\(hash)".utf8)
            return try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(1)
        }
    }

    @Test(.enabled(if: LoopbackServices.haveApache, Comment(rawValue: apacheMissing)))
    func aKilledLeaseholderInAnApacheStoreDelaysTheOthersByAtMostTheLease() throws {
        let apache = try ApacheProcess()
        try aKilledLeaseholderDelaysTheOthersByAtMostTheLease(sharing: apache.url) { hash in
            FileManager.default.fileExists(atPath: apache.objectPath("\(hash).lease"))
        }
    }

    /// The leaseholder is SIGKILLed mid-download: its lease is no longer
    /// renewed, and the next machine takes it over when it expires.
    func aKilledLeaseholderDelaysTheOthersByAtMostTheLease(
        sharing store: String, leaseExists: (String) throws -> Bool
    ) throws {
        let origin = try TestHTTPServer()
        let bytes = try Self.image(1)
        // About four seconds per answer.
        origin.route(
            "/slow.png", .trickle(bytes, bytesPerSecond: bytes.count / 4, headers: ["Cache-Control": "max-age=3600"]))
        let remote = store + "|lease=2000|timeout=5000|connect-timeout=2000"
        let holderCache = try TemporaryDirectory()
        let holder = try CLI.start(
            ["fetch", "--remote-storage", remote, origin.url("/slow.png")], cacheDir: holderCache.path,
            stdinPath: "/dev/null")
        let hash = CacheKey(origin.url("/slow.png")).hash
        var leased = false
        for _ in 0..<500 where !leased {
            leased = try leaseExists(hash)
            if !leased { usleep(20_000) }
        }
        #expect(leased, "the first machine took no lease")
        // Killed mid-download: once the origin has its request.
        for _ in 0..<500 where origin.requestCount(for: "/slow.png") == 0 { usleep(20_000) }
        #expect(origin.requestCount(for: "/slow.png") == 1, "the first machine did not start its download")
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let started = Date()
        let otherCache = try TemporaryDirectory()
        let other = try CLI.run(
            ["fetch", "-v", "--remote-storage", remote, origin.url("/slow.png")],
            cacheDir: otherCache.path, timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(other.status == 0 && other.stdout == bytes, "\(other.stderr)")
        #expect(other.stderr.contains("another machine is downloading"), "\(other.stderr)")
        #expect(other.stderr.contains("took the download lease"), "\(other.stderr)")
        // At most the lease (2 s), the poll margin, and its own 4 s download, with room for a loaded machine.
        if upperTimeBoundsHold { #expect(elapsed < 2 + RemoteCache.leaseMargin + 4 + 6, "\(elapsed) s") }
        #expect(origin.requestCount(for: "/slow.png") == 2)
    }
}
