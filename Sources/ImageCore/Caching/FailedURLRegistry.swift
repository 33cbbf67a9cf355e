/// URLs that failed for good (an HTTP error status, not an image, corrupt, over
/// a limit), remembered on disk so they are not requested again until the
/// record expires or the caller asks to retry (SDWebImage's failedURLs, made
/// persistent). Transient failures are never recorded.
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
    }

    private let directory: CacheDirectory
    private let timeToLive: Double

    /// A registry in `directory` whose records last `timeToLive` seconds.
    public init(directory: CacheDirectory, timeToLive: Double) {
        self.directory = directory
        self.timeToLive = timeToLive
    }

    /// The unexpired record for `key`, if any.
    public func record(for key: CacheKey, now: Double = WallClock.now()) -> Record? {
        guard let record = Self.readRecord(directory.failedPath(key.hash)), record.expiresAt > now else { return nil }
        return record
    }

    /// Reads a record file; nil if absent or unreadable.
    static func readRecord(_ path: String) -> Record? {
        (try? POSIXFile.read(path, limit: 1 << 16)).flatMap(parse)
    }

    /// Remembers that `url` failed with `error`.
    public func add(_ key: CacheKey, url: String, error: ImageCoreError, now: Double = WallClock.now()) throws {
        let path = directory.failedPath(key.hash)
        try POSIXFile.makeDirectories(directory.shard(directory.failed, key.hash))
        let lines = [
            "url \(url)", "kind \(error.kind.rawValue)", error.httpStatus.map { "status \($0)" },
            "message \(error.message)", "failed \(now)", "expires \(now + timeToLive)",
        ]
        let text = lines.compactMap { $0?.filter { !$0.isNewline } }.joined(separator: "\n") + "\n"
        try POSIXFile.writeAtomically(Array(text.utf8), to: path, temporaryDirectory: directory.temporary)
    }

    /// Forgets `key`; returns whether it was recorded.
    @discardableResult
    public func remove(_ key: CacheKey) throws -> Bool {
        try POSIXFile.remove(directory.failedPath(key.hash))
    }

    static func parse(_ bytes: [UInt8]) -> Record? {
        var fields: [Substring: Substring] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let url = fields["url"], let kind = fields["kind"].flatMap({ ImageCoreError.Kind(rawValue: String($0)) }),
              let failed = fields["failed"].flatMap({ Double($0) }), let expires = fields["expires"].flatMap({ Double($0) })
        else { return nil }
        return Record(url: String(url), kind: kind, httpStatus: fields["status"].flatMap { Int($0) },
                      message: String(fields["message"] ?? ""), failedAt: failed, expiresAt: expires)
    }
}
