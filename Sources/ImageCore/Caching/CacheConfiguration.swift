/// Settings that every process sharing a cache directory must agree on, read
/// from `CACHE_DIR/imgcache.conf` (`key = value` lines, `#` comments).
/// Command-line flags override them for one run.
public struct CacheConfiguration: Sendable, Equatable {
    /// Entries not used for this long are removed by `clean` (seconds).
    public var maxAge: Double = 7 * 86400
    /// The disk cache is trimmed back under this many bytes after a store; nil: no limit.
    public var maxSize: Int?
    /// How long a URL stays on the failed-URL list (seconds).
    public var failedTTL: Double = 86400
    /// Cost limit of the in-process memory cache, in bytes of decoded pixels.
    public var memoryLimit: Int = 256 * 1024 * 1024
    /// Shared stores looked up after the disk and before the origin
    /// (`remote-storage = URL [URL...]`); see `RemoteStorageURL`.
    public var remoteStorage: [RemoteStorageURL] = []
    /// What the file said that was ignored, one line each
    /// (`PATH:LINE: unknown setting 'KEY', ignored`): a newer imgcache
    /// sharing the cache may have written a setting this one does not know.
    public var warnings: [String] = []
    /// Download settings a flag of the same name overrides (nil: the
    /// built-in default): the stall timeout, the connect timeout and the
    /// total time of one attempt (seconds), the run's download rate (bytes
    /// per second), connections per host, and new requests per host.
    public var timeout: Double?
    public var connectTimeout: Double?
    public var maxTime: Double?
    public var limitRate: Int?
    public var maxPerHost: Int?
    public var rate: RequestRate?
    /// `aws-sigv4 = PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]]`: origin
    /// requests signed with AWS SigV4, as `--aws-sigv4` does.
    public var awsSigV4: String?

    /// The defaults: 7 days, no size limit, 24 hours, 256 MiB.
    public init() {}

    /// The configuration file's name inside the cache directory.
    public static let fileName = "imgcache.conf"

    /// Parses the file's text. A malformed value is a `.usage` error, so a
    /// typo cannot silently disable a limit; an unknown key is a warning.
    public init(parsing text: String, source: String) throws {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line =
                rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingSpaces()
                ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard parts.count == 2 else { throw invalid(source, number, "expected 'key = value'") }
            let (key, value) = (String(parts[0]), String(parts[1]))
            switch key {
            case "max-age":
                guard let seconds = Quantities.parseDuration(value) else {
                    throw invalid(source, number, "bad duration '\(value)'")
                }
                maxAge = seconds
            case "max-size":
                guard let limit = Quantities.parseSizeLimit(value) else {
                    throw invalid(source, number, "bad size '\(value)'")
                }
                maxSize = limit
            case "failed-ttl":
                guard let seconds = Quantities.parseDuration(value) else {
                    throw invalid(source, number, "bad duration '\(value)'")
                }
                failedTTL = seconds
            case "memory-limit":
                guard let bytes = Quantities.parseSize(value) else {
                    throw invalid(source, number, "bad size '\(value)'")
                }
                memoryLimit = bytes
            case "timeout", "connect-timeout", "max-time":
                guard let seconds = Quantities.parseDuration(value), seconds > 0 else {
                    throw invalid(source, number, "bad duration '\(value)'")
                }
                switch key {
                case "timeout": timeout = seconds
                case "connect-timeout": connectTimeout = seconds
                default: maxTime = seconds
                }
            case "limit-rate":
                guard let bytes = Quantities.parseSize(value), bytes > 0 else {
                    throw invalid(source, number, "bad rate '\(value)'")
                }
                limitRate = bytes
            case "max-per-host":
                guard let count = Int(value), (1...256).contains(count) else {
                    throw invalid(source, number, "bad count '\(value)' (1 to 256)")
                }
                maxPerHost = count
            case "rate":
                guard let parsed = RequestRate(parsing: value) else {
                    throw invalid(source, number, "bad rate '\(value)' (N/s or N/m)")
                }
                rate = parsed
            case "aws-sigv4":
                guard DownloadRequest.isValidAWSSigV4(value) else {
                    throw invalid(source, number, "bad provider '\(value)' (PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]])")
                }
                awsSigV4 = value
            case "remote-storage":
                do {
                    remoteStorage = try RemoteStorageURL.parseList(value)
                } catch let error as ImageCoreError {
                    throw invalid(source, number, error.message)
                }
            default:
                warnings.append("\(source):\(number + 1): unknown setting '\(key)', ignored")
            }
        }
    }

    /// Reads `imgcache.conf` from the directory; defaults if there is none.
    public static func load(fromCacheDirectory directory: String) throws -> CacheConfiguration {
        let path = "\(directory)/\(fileName)"
        guard let bytes = try POSIXFile.read(path, limit: 1 << 20) else { return CacheConfiguration() }
        return try CacheConfiguration(parsing: String(decoding: bytes, as: UTF8.self), source: path)
    }
}

private func invalid(_ source: String, _ index: Int, _ what: String) -> ImageCoreError {
    ImageCoreError(.usage, "\(source):\(index + 1): \(what)")
}
