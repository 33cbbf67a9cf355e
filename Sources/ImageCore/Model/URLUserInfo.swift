/// A URL's own `user:password@` (its user info), as curl takes it: the
/// credentials to send, as `-u` gives them, never a part of the URL that
/// imgcache keys, keeps in the cache or prints (the man page: "Passwords
/// and secrets are never shown").
public enum URLUserInfo {
    /// `url` without its user info, and that user info percent-decoded
    /// (`alice%40corp:pa%3Ass` sends user `alice@corp`, password `pa:ss`,
    /// as curl decodes it), if it has one.
    static func split(_ url: String) -> (url: String, credentials: String?) {
        // Most URLs have no @ anywhere: one pass over the bytes.
        guard hasAt(url) else { return (url, nil) }
        let parts = RemoteStorageURL.split(url)
        guard let userInfo = parts.userInfo else { return (url, nil) }
        return (
            parts.scheme + parts.hostAndPath, String(platformBytes: PercentDecoding.decoded(ArraySlice(userInfo.utf8)))
        )
    }

    /// `url` as it is printed: a password in it shown as `***`
    /// (`http://alice:***@host/a.png`). The key of either is the same: a
    /// URL's user info is never part of its key.
    public static func shown(_ url: String) -> String {
        guard hasAt(url) else { return url }
        let parts = RemoteStorageURL.split(url)
        guard let userInfo = parts.userInfo, let colon = userInfo.firstIndex(of: ":") else { return url }
        return "\(parts.scheme)\(userInfo[..<colon]):\(SecretRedaction.mask)@\(parts.hostAndPath)"
    }

    /// Whether `url` holds an @, searched for in its UTF-8 where the string
    /// keeps it: the `UTF8View`'s generic `contains` was 1.1 k instructions
    /// a URL, asked twice for each cold URL (callgrind).
    private static func hasAt(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { $0.contains(UInt8(ascii: "@")) }
    }
}
