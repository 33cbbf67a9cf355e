/// One remote storage as configured, in ccache's syntax:
/// `URL[|read-only][|connect-timeout=MS][|timeout=MS][|shards=A,B(2),…][|lease=MS]`,
/// where URL is `http://…`, `https://…`, `redis://[user:password@]host[:port][/db]`
/// or `s3://BUCKET[/PREFIX]` (which also takes `|endpoint=URL` and `|region=R`).
/// With shards, the URL holds one `*`, replaced by the shard that rendezvous
/// hashing picks for each key (`ShardSelection`).
///
/// Its `description` and its mirror (`dump()`) mask the password, so it may
/// be printed; `url` holds it and must never be.
public struct RemoteStorageURL: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Which backend serves the URL.
    public enum Scheme: Sendable, Equatable {
        case http, redis, s3
    }

    /// The URL as given, credentials included.
    public var url: String
    /// The backend.
    public var scheme: Scheme
    /// Whether entries are only read, never uploaded or deleted.
    public var readOnly = false
    /// Time allowed to connect, in seconds (ccache's default: 100 ms).
    public var connectTimeout = 0.1
    /// Time allowed for one operation, in seconds (ccache's default: 1 s).
    public var timeout = 1.0
    /// The shards the `*` in `url` stands for; empty when not sharded.
    public var shards: [Shard] = []
    /// How long a download lease taken in this store lasts, in seconds
    /// (renewed while the download runs); `defaultLeaseDuration` unless `|lease=MS`.
    public var leaseDuration = Self.defaultLeaseDuration
    /// An S3 store's endpoint (`|endpoint=URL`); nil: the run's (`AWSSettings`).
    public var endpoint: String?
    /// An S3 store's region (`|region=R`); nil: the run's (`AWSSettings`).
    public var region: String?

    /// The lease time without `|lease=MS`. Short, because the holder renews
    /// it every third of it while it downloads: a holder that dies keeps
    /// the others waiting this long at most (plus `RemoteCache.leaseMargin`
    /// and a poll), well within the 10 s the man page promises.
    public static let defaultLeaseDuration = 6.0
    /// The time allowed to a lease request at least (`|timeout=` when longer).
    public static let leaseRequestTimeout = 10.0

    /// One shard: a name that replaces the `*`, and its share of the keys
    /// relative to the others' (ccache's `name(weight)`, default 1).
    public struct Shard: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var weight: Double

        /// `name`, or `name(weight)` when the weight is not 1.
        public var description: String {
            guard weight != 1 else { return name }
            return weight == weight.rounded() && abs(weight) < 1e15 ? "\(name)(\(Int(weight)))" : "\(name)(\(weight))"
        }

        public init(name: String, weight: Double = 1) {
            self.name = name
            self.weight = weight
        }
    }

    /// Parses one storage; throws `.usage`-worthy `.failure` errors that
    /// name the storage with its password masked.
    public init(parsing spec: String) throws {
        let parts = spec.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        url = parts[0]
        let lowered = url.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            scheme = .http
        } else if lowered.hasPrefix("redis://") {
            scheme = .redis
        } else if lowered.hasPrefix("s3://") {
            scheme = .s3
            guard S3ObjectURL(url) != nil else {
                throw ImageCoreError(.failure, "remote storage '\(Self.masked(url))': expected s3://BUCKET[/PREFIX]")
            }
        } else {
            throw ImageCoreError(
                .failure, "remote storage '\(Self.masked(url))': not an http, https, redis or s3 URL")
        }
        guard Self.split(url).hostAndPath.first.map({ $0 != "/" && $0 != ":" }) ?? false else {
            throw ImageCoreError(.failure, "remote storage '\(Self.masked(url))': no host")
        }
        for attribute in parts.dropFirst() {
            let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let milliseconds = pair.count == 2 ? Double(pair[1]).flatMap { $0 > 0 ? $0 / 1000 : nil } : nil
            switch (pair[0], milliseconds) {
            case ("read-only", _) where pair.count == 1: readOnly = true
            case ("connect-timeout", let seconds?): connectTimeout = seconds
            case ("timeout", let seconds?): timeout = seconds
            case ("lease", let seconds?): leaseDuration = seconds
            case ("endpoint", _) where pair.count == 2 && scheme == .s3:
                let lowered = pair[1].lowercased()
                guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                    throw ImageCoreError(
                        .failure,
                        "remote storage '\(Self.masked(url))': |endpoint= needs an http or https URL, "
                            + "not '\(Self.masked(pair[1]))'")
                }
                endpoint = pair[1]
            case ("region", _) where pair.count == 2 && scheme == .s3 && !pair[1].isEmpty:
                region = pair[1]
            case ("shards", _) where pair.count == 2:
                guard let parsed = Self.parseShards(pair[1]) else {
                    throw ImageCoreError(
                        .failure,
                        "remote storage '\(Self.masked(url))': bad shards '\(pair[1])' (expected NAME[(WEIGHT)],…)")
                }
                shards = parsed
            case ("connect-timeout", nil), ("timeout", nil), ("lease", nil):
                throw ImageCoreError(
                    .failure,
                    "remote storage '\(Self.masked(url))': bad \(pair[0]) '\(pair.count == 2 ? pair[1] : "")' "
                        + "(expected milliseconds above 0)")
            default:
                // Why masked: a misspelt `endpont=http://user:password@host` holds a URL too.
                let shown = pair.count == 2 ? "\(pair[0])=\(Self.masked(pair[1]))" : attribute
                throw ImageCoreError(
                    .failure,
                    "remote storage '\(Self.masked(url))': unknown attribute '\(shown)' "
                        + "(expected read-only, connect-timeout=MS, timeout=MS, shards=A,B,…, lease=MS"
                        + (scheme == .s3 ? ", endpoint=URL or region=R)" : ")"))
            }
        }
        let stars = url.filter { $0 == "*" }.count
        if shards.isEmpty ? stars != 0 : stars != 1 {
            throw ImageCoreError(
                .failure,
                "remote storage '\(Self.masked(url))': "
                    + (shards.isEmpty ? "a '*' needs |shards=" : "|shards= needs exactly one '*' in the URL"))
        }
    }

    /// `a,b(2),c(0.5)` → shards; nil for an empty name, a bad or non-positive
    /// weight, or a name given twice.
    private static func parseShards(_ text: String) -> [Shard]? {
        var shards: [Shard] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            var name = Substring(item)
            var weight = 1.0
            if item.hasSuffix(")"), let parenthesis = item.firstIndex(of: "(") {
                guard let parsed = Double(item[item.index(after: parenthesis)..<item.index(before: item.endIndex)]),
                    parsed > 0, parsed.isFinite
                else { return nil }
                (name, weight) = (item[..<parenthesis], parsed)
            }
            guard !name.isEmpty, !name.contains(where: { "()*/@ ".contains($0) }),
                !shards.contains(where: { $0.name == name })
            else { return nil }
            shards.append(Shard(name: String(name), weight: weight))
        }
        return shards.isEmpty ? nil : shards
    }

    /// This storage's shard `shard`: the `*` replaced by its name, no
    /// shards, the other attributes kept.
    public func shard(_ shard: Shard) -> RemoteStorageURL {
        var one = self
        one.url = url.split(separator: "*", omittingEmptySubsequences: false).joined(separator: shard.name)
        one.shards = []
        return one
    }

    /// Parses a space-separated list, as in `remote-storage = URL URL`.
    public static func parseList(_ text: String) throws -> [RemoteStorageURL] {
        try text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { try RemoteStorageURL(parsing: String($0)) }
    }

    /// The storage for people to read: password replaced by `***`, attributes kept.
    public var description: String {
        var text = Self.masked(url)
        if readOnly { text += "|read-only" }
        if connectTimeout != 0.1 { text += "|connect-timeout=\(Int((connectTimeout * 1000).rounded()))" }
        if timeout != 1.0 { text += "|timeout=\(Int((timeout * 1000).rounded()))" }
        if !shards.isEmpty {
            text += "|shards=" + shards.map(\.description).joined(separator: ",")
        }
        if leaseDuration != Self.defaultLeaseDuration { text += "|lease=\(Int((leaseDuration * 1000).rounded()))" }
        if let endpoint { text += "|endpoint=\(Self.masked(endpoint))" }
        if let region { text += "|region=\(region)" }
        return text
    }

    /// Every field, the passwords of `url` and `endpoint` masked.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": Self.masked(url), "scheme": scheme, "readOnly": readOnly, "connectTimeout": connectTimeout,
                "timeout": timeout, "shards": shards, "leaseDuration": leaseDuration,
                "endpoint": SecretRedaction.maskedURL(endpoint) as Any, "region": region as Any,
            ], displayStyle: .struct)
    }

    /// The URL alone, password replaced by `***`: how `stat` names a store (or shard).
    public var maskedURL: String { Self.masked(url) }

    /// The URL without its `user:password@`, and that user info, if any.
    public var withoutCredentials: (url: String, credentials: String?) {
        let parts = Self.split(url)
        return (parts.scheme + parts.hostAndPath, parts.userInfo)
    }

    /// `scheme://user:pass@host/path` → ("scheme://", "user:pass", "host/path").
    static func split(_ url: String) -> (scheme: String, userInfo: String?, hostAndPath: String) {
        let pieces = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2 else { return ("", nil, url) }
        let scheme = String(pieces[0]) + "://"
        let rest = pieces[1]
        let authorityEnd = rest.firstIndex { character in "/?#".contains(character) } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return (scheme, nil, String(rest)) }
        return (scheme, String(rest[..<at]), String(rest[rest.index(after: at)...]))
    }

    /// The URL with any password replaced by `***` (a lone user info is taken
    /// to be a password, as Redis's `redis://secret@host` is).
    static func masked(_ url: String) -> String {
        let parts = split(url)
        guard let userInfo = parts.userInfo else { return url }
        let user = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let shown = user.count == 2 ? "\(user[0]):***" : "***"
        return "\(parts.scheme)\(shown)@\(parts.hostAndPath)"
    }
}
