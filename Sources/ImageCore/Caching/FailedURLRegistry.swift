import Synchronization

/// URLs that failed for good (an HTTP error status, not an image, corrupt, over
/// a limit), remembered on disk so they are not requested again until the
/// record expires or the caller asks to retry (SDWebImage's failedURLs, made
/// persistent). Transient failures are never recorded.
///
/// A record belongs to the request that failed, not to every request of its
/// URL: a 401 without credentials says nothing about the same URL with them.
/// So a request that sends credentials, extra headers, cookies or a proxy
/// keeps its records under its cache key plus a digest of those
/// (`requestDigest`), as an entry that varies does with `Vary`; a plain
/// request's records sit under the cache key alone.
///
/// The records' directory is made by the first failure. A registry that
/// finds it absent remembers that, so a run of misses in a cache that never
/// failed costs one `stat`, not a look-up per URL; a record another process
/// adds meanwhile counts from this process's next run.
public struct FailedURLRegistry: Sendable {
    /// A remembered failure.
    public struct Record: Sendable, Equatable {
        /// The URL that failed.
        public var url: String
        /// Why, as an error kind name.
        public var kind: ImageCoreError.Kind
        /// The HTTP status, if the server answered with an error.
        public var httpStatus: Int?
        /// The error message.
        public var message: String
        /// When it failed (seconds since 1970).
        public var failedAt: Double
        /// When the record stops counting.
        public var expiresAt: Double
        /// The limit that refused the image and its value then, when a limit
        /// did: a run whose limit is higher tries again.
        public var limit: (name: ImageCoreError.Limit, value: Int)?

        public static func == (a: Record, b: Record) -> Bool {
            (a.url, a.kind, a.httpStatus, a.message, a.failedAt, a.expiresAt)
                == (b.url, b.kind, b.httpStatus, b.message, b.failedAt, b.expiresAt)
                && a.limit?.name == b.limit?.name && a.limit?.value == b.limit?.value
        }
    }

    private let directory: CacheDirectory
    private let timeToLive: Double
    /// Whether the records' directory exists: unknown until first asked.
    private let hasDirectory = FailedDirectoryPresence()

    /// A registry in `directory` whose records last `timeToLive` seconds.
    public init(directory: CacheDirectory, timeToLive: Double) {
        self.directory = directory
        self.timeToLive = timeToLive
    }

    /// The unexpired record for `key` and the request with `requestDigest`, if any.
    public func record(for key: CacheKey, requestDigest: String? = nil, now: Double = WallClock.now()) -> Record? {
        guard hasDirectory.check({ POSIXFile.status(directory.failed) != nil }),
            let record = Self.readRecord(path(key, requestDigest)), record.expiresAt > now
        else { return nil }
        return record
    }

    /// A digest of what a request sends, beyond its URL, that can change the
    /// answer: extra headers, credentials, the proxy and the cookie jar's
    /// contents (`cookies`), the AWS signing (its region), and `sentTo`, the
    /// URL the request goes to when that is not the URL it is keyed by (an
    /// `s3://` URL resolved with the endpoint and region). Nil when it sends
    /// none of these. Only 64 bits of a SHA-256 are kept, never the values
    /// themselves; and what may hold a secret (headers, credentials, the
    /// proxy, cookies) enters it stretched (`stretched`), since the digest
    /// names a file: a plain hash of `user:password` let anyone who could
    /// list the cache test guesses at the password offline, fast.
    public static func requestDigest(_ request: DownloadRequest, cookies: [UInt8]?, sentTo: String? = nil) -> String? {
        var secrets = request.headers.map { "header \($0.name.lowercased()): \($0.value)" }.sorted()
        if let credentials = request.credentials { secrets.append("user \(credentials)") }
        if let proxy = request.proxy { secrets.append("proxy \(proxy)") }
        if let cookies, !cookies.isEmpty { secrets.append("cookies \(Digest.sha256Hex(cookies))") }
        var parts: [String] = []
        if let signing = request.awsSigV4 { parts.append("aws-sigv4 \(signing)") }
        if let sentTo { parts.append("sent to \(sentTo)") }
        if !secrets.isEmpty { parts.append("secrets \(stretched(secrets.joined(separator: "\n")))") }
        guard !parts.isEmpty else { return nil }
        return String(Digest.sha256Hex(Array(parts.joined(separator: "\n").utf8)).prefix(16))
    }

    /// Rounds of PBKDF2-HMAC-SHA256 for a request's secrets: about 20 ms,
    /// paid once a run for each set of them (a run's requests share theirs),
    /// and as often by anyone testing a guess.
    static let stretchingRounds: UInt32 = 100_000

    /// `secrets` stretched, remembered for the run by their SHA-256. Stretched
    /// under the lock: a run's first loads ask together (`prefetch -j6`), and
    /// each would otherwise pay the 20 ms for the same answer; the others wait
    /// for it instead.
    private static func stretched(_ secrets: String) -> String {
        let bytes = Array(secrets.utf8)
        let name = Digest.sha256Hex(bytes)
        return stretchedSecrets.withLock { known in
            if let digest = known[name] { return digest }
            let digest = Digest.stretchedHex(bytes, salt: "imgcache failed-URL list", iterations: stretchingRounds)
            known[name] = digest
            return digest
        }
    }

    private static let stretchedSecrets = Mutex<[String: String]>([:])

    private func path(_ key: CacheKey, _ requestDigest: String?) -> String {
        directory.failedPath(key.hash) + (requestDigest.map { ".\($0)" } ?? "")
    }

    /// Reads a record file; nil if absent or unreadable.
    static func readRecord(_ path: String) -> Record? {
        (try? POSIXFile.read(path, limit: 1 << 16)).flatMap(parse)
    }

    /// Remembers that `url` failed with `error`; `limitValue` is the value
    /// of the limit it was over (`error.exceededLimit`), if any.
    public func add(
        _ key: CacheKey, requestDigest: String? = nil, url: String, error: ImageCoreError, limitValue: Int? = nil,
        now: Double = WallClock.now()
    ) throws {
        let path = path(key, requestDigest)
        try POSIXFile.makeDirectories(directory.failed)
        hasDirectory.set()
        let limit = error.exceededLimit.flatMap { name in limitValue.map { "limit \(name.rawValue) \($0)" } }
        let lines = [
            "url \(url)", "kind \(error.kind.rawValue)", error.httpStatus.map { "status \($0)" },
            "message \(error.message)", "failed \(now)", "expires \(now + timeToLive)", limit,
        ]
        let text = lines.compactMap { $0?.filter { !$0.isNewline } }.joined(separator: "\n") + "\n"
        try POSIXFile.writeAtomically(Array(text.utf8), to: path, temporaryDirectory: directory.temporary)
    }

    /// Forgets `key`'s record for the request with `requestDigest`; returns whether there was one.
    @discardableResult
    public func remove(_ key: CacheKey, requestDigest: String?) throws -> Bool {
        try POSIXFile.remove(path(key, requestDigest))
    }

    /// Forgets every record of `key`, whatever request made it; returns whether there was one.
    @discardableResult
    public func remove(_ key: CacheKey) throws -> Bool {
        var removed = false
        for name in POSIXFile.list(directory.failed) where name == key.hash || name.hasPrefix(key.hash + ".") {
            removed = try POSIXFile.remove("\(directory.failed)/\(name)") || removed
        }
        return removed
    }

    static func parse(_ bytes: [UInt8]) -> Record? {
        var fields: [Substring: Substring] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let url = fields["url"], let kind = fields["kind"].flatMap({ ImageCoreError.Kind(rawValue: String($0)) }),
            let failed = fields["failed"].flatMap({ Double($0) }),
            let expires = fields["expires"].flatMap({ Double($0) })
        else { return nil }
        let limit = fields["limit"].flatMap { text -> (ImageCoreError.Limit, Int)? in
            let parts = text.split(separator: " ")
            guard parts.count == 2, let name = ImageCoreError.Limit(rawValue: String(parts[0])),
                let value = Int(parts[1])
            else { return nil }
            return (name, value)
        }
        return Record(
            url: String(url), kind: kind, httpStatus: fields["status"].flatMap { Int($0) },
            message: String(fields["message"] ?? ""), failedAt: failed, expiresAt: expires, limit: limit)
    }
}

/// Whether a directory exists, asked once and then remembered; `set()`
/// records that this process made it.
private final class FailedDirectoryPresence: Sendable {
    private static let unknown: UInt8 = 0
    private static let absent: UInt8 = 1
    private static let present: UInt8 = 2
    private let state = Atomic<UInt8>(unknown)

    /// Whether the directory exists; `exists` runs only the first time.
    func check(_ exists: () -> Bool) -> Bool {
        var known = state.load(ordering: .relaxed)
        if known == Self.unknown {
            known = exists() ? Self.present : Self.absent
            state.store(known, ordering: .relaxed)
        }
        return known == Self.present
    }

    func set() { state.store(Self.present, ordering: .relaxed) }
}
