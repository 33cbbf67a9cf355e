/// What identifies an entry in the caches: by default the normalised URL. Files on
/// disk are named by the SHA-256 of the key, never by anything taken from the
/// URL itself.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The key text (a URL, possibly with query parameters removed).
    public let string: String
    /// Hex SHA-256 of `string`: the entry's file name stem.
    public let hash: String
    /// The SHA-256's first 64 bits: what the key is hashed by (in-flight
    /// loads, prefetch's count of distinct URLs), where hashing `string`
    /// cost a cold URL 1.4 k instructions (five hashes of a URL's bytes).
    let word: UInt64

    /// Creates a key from its text.
    public init(_ string: String) {
        self.string = string
        (hash, word) = Digest.sha256HexAndWord(utf8: string)
    }

    public var description: String { string }

    /// Keys are the same when their text is (`hash` and `word` follow from it).
    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.string == rhs.string
    }

    /// Hashes the digest's first 64 bits, not the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(word)
    }
}

/// How a URL becomes a cache key (SDWebImage's cacheKeyFilter): signed URLs
/// whose signature parameter changes can keep one entry.
public struct CacheKeyPolicy: Sendable, Equatable {
    /// Drop the whole query string.
    public var ignoresQuery: Bool
    /// Query parameters to drop, by exact name.
    public var strippedParameters: [String]

    /// The exact URL is the key.
    public static let exactURL = CacheKeyPolicy()

    /// Creates a policy.
    public init(ignoresQuery: Bool = false, strippedParameters: [String] = []) {
        self.ignoresQuery = ignoresQuery
        self.strippedParameters = strippedParameters
    }

    /// The key for `url`: normalised as WHATWG URL parsing does
    /// (`URLNormalization`), without the fragment, which never reaches the server. "#" and "?" are looked for as bytes: a
    /// search by Character was most of the key's cost, and in a URL they
    /// delimit wherever they stand.
    public func key(for url: String) -> CacheKey {
        var text = url
        if let hash = text.utf8Index(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        text = URLNormalization.normalize(text)
        guard let question = text.utf8Index(of: UInt8(ascii: "?")) else { return CacheKey(text) }
        let base = String(text[..<question])
        if ignoresQuery { return CacheKey(base) }
        guard !strippedParameters.isEmpty else { return CacheKey(text) }
        let kept = text[text.utf8.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { pair in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return !strippedParameters.contains(String(name))
            }
        return CacheKey(kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"))
    }
}
