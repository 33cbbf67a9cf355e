import Synchronization

/// A remote storage on a Redis server: an entry is the string value at
/// `imgcache:<layout version>:<key hash>`, read with GET, written with SET
/// (no expiry: the server's `maxmemory-policy allkeys-lru` evicts) and
/// removed with DEL. A download lease is `imgcache:<layout version>:lease:<key hash>`,
/// taken with `SET … NX PX` and renewed or released by a Lua script that first
/// compares the holder's token, so a holder never extends or frees another's.
///
/// Connections are opened on first use and pooled: a command takes one out
/// of the pool, runs off the cooperative thread pool, and puts it back.
final class RedisRemoteStorage: RemoteLeasing, CustomReflectable {
    let configured: RemoteStorageURL
    private let host: String
    private let port: Int
    private let database: Int
    private let user: String?
    private let password: String?
    private let idle = Mutex<[RedisConnection]>([])

    init(_ configured: RemoteStorageURL) {
        self.configured = configured
        let parts = RemoteStorageURL.split(configured.url)
        let userInfo =
            parts.userInfo?.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) ?? []
        user = userInfo.count == 2 && !userInfo[0].isEmpty ? userInfo[0] : nil
        password = userInfo.last
        let hostPort = parts.hostAndPath.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        database = hostPort.count == 2 ? Int(hostPort[1]) ?? 0 : 0
        let authority = String(hostPort[0])
        let colon = authority.lastIndex(of: ":")
        let number = colon.flatMap { Int(authority[authority.index(after: $0)...]) }
        host = number != nil ? String(authority[..<colon!]) : authority
        port = number ?? 6379
    }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? {
        switch try await run(["GET", key(name)]) {
        case .string(let bytes): return bytes.count <= maxBytes ? bytes : nil
        default: return nil
        }
    }

    func put(_ name: String, _ object: [UInt8]) async throws {
        _ = try await run([Array("SET".utf8), Array(key(name).utf8), object])
    }

    func delete(_ name: String) async throws -> Bool {
        if case .integer(let count) = try await run(["DEL", key(name)]) { return count > 0 }
        return false
    }

    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        let reply = try await run(["SET", leaseKey(name), token, "NX", "PX", String(Self.milliseconds(duration))])
        if reply == .status("OK") { return .acquired }
        // How long the holder's lease runs unless renewed: a waiter waits
        // that long. Ours if it holds our token: an earlier SET went through, its answer lost.
        guard case .integer(let milliseconds) = try await run(["EVAL", Self.heldScript, "1", leaseKey(name), token])
        else {
            return .held(remaining: nil)
        }
        if milliseconds == Self.heldByUs { return .acquired }
        return .held(remaining: milliseconds >= 0 ? Double(milliseconds) / 1000 : nil)
    }

    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool {
        let reply = try await run([
            "EVAL", Self.renewScript, "1", leaseKey(name), token, String(Self.milliseconds(duration)),
        ])
        return reply == .integer(1)
    }

    func releaseLease(_ name: String, token: String) async throws {
        _ = try await run(["EVAL", Self.releaseScript, "1", leaseKey(name), token])
    }

    /// The lease's remaining milliseconds (PTTL), or `heldByUs` if it holds our token.
    private static let heldScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return -100 end return redis.call('PTTL', KEYS[1])
        """
    private static let heldByUs = -100

    /// Compare-and-extend: a holder whose lease expired and was taken by
    /// another machine must not extend the other's.
    private static let renewScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0
        """

    /// Compare-and-delete, for the same reason.
    private static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0
        """

    private static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded())) }

    private func key(_ name: String) -> String { "imgcache:\(RemoteObject.layoutVersion):\(name)" }

    private func leaseKey(_ name: String) -> String { "imgcache:\(RemoteObject.layoutVersion):lease:\(name)" }

    private func run(_ arguments: [String]) async throws -> RedisConnection.Reply {
        try await run(arguments.map { Array($0.utf8) })
    }

    /// Runs one command on a pooled connection (a new one if none is idle).
    private func run(_ arguments: [[UInt8]]) async throws -> RedisConnection.Reply {
        let pooled = idle.withLock { $0.popLast() }
        do {
            let (reply, connection) = try await runInBackground { [self] in
                let connection = try pooled ?? connect()
                return (try connection.command(arguments), connection)
            }
            if !connection.isBroken { idle.withLock { $0.append(connection) } }
            return reply
        } catch let error as ImageCoreError {
            var failure = ImageCoreError(
                .network,
                "\(arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? "") \(configured): \(error.message)")
            failure.transportFault = error.transportFault
            throw failure
        }
    }

    /// A new connection, authenticated and on the configured database.
    private func connect() throws -> RedisConnection {
        let connection = try RedisConnection(
            host: host, port: port, connectTimeout: configured.connectTimeout,
            timeout: configured.timeout)
        if let password {
            _ = try connection.command(
                (user.map { ["AUTH", $0, password] } ?? ["AUTH", password]).map { Array($0.utf8) })
        }
        if database != 0 { _ = try connection.command(["SELECT", String(database)].map { Array($0.utf8) }) }
        return connection
    }
}
