/// One remote storage as configured, in ccache's syntax:
/// `URL[|read-only][|connect-timeout=MS][|timeout=MS]`, where URL is
/// `http://…`, `https://…` or `redis://[user:password@]host[:port][/db]`.
///
/// Its `description` masks the password, so it may be printed; `url` holds
/// it and must never be.
public struct RemoteStorageURL: Sendable, Equatable, CustomStringConvertible {
    /// Which backend serves the URL.
    public enum Scheme: Sendable, Equatable {
        case http, redis
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
        } else {
            throw ImageCoreError(.failure, "remote storage '\(Self.masked(url))': not an http, https or redis URL")
        }
        guard Self.split(url).hostAndPath.first.map({ $0 != "/" && $0 != ":" }) ?? false else {
            throw ImageCoreError(.failure, "remote storage '\(Self.masked(url))': no host")
        }
        for attribute in parts.dropFirst() {
            let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            switch (pair[0], pair.count == 2 ? Double(pair[1]) : nil) {
            case ("read-only", _) where pair.count == 1: readOnly = true
            case ("connect-timeout", let ms?) where ms > 0: connectTimeout = ms / 1000
            case ("timeout", let ms?) where ms > 0: timeout = ms / 1000
            default:
                throw ImageCoreError(
                    .failure,
                    "remote storage '\(Self.masked(url))': unknown attribute '\(attribute)' "
                        + "(expected read-only, connect-timeout=MS or timeout=MS)")
            }
        }
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
        return text
    }

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
