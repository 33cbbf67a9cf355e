/// An object named as `s3://BUCKET/KEY`, and the http(s) URL that reaches
/// it: path-style on a custom endpoint (`ENDPOINT/BUCKET/KEY`, as SeaweedFS,
/// MinIO and Ceph expect), virtual-hosted on AWS
/// (`https://BUCKET.s3.REGION.amazonaws.com/KEY`; path-style there too for a
/// bucket with a dot, which no wildcard certificate covers).
///
/// The key is kept as the URL spells it (already percent-encoded with
/// upper-case escapes by the cache key's normal form), so the path libcurl
/// signs is the path S3 canonicalises; there is never a query, whose
/// canonical form curl before 8.3 gets wrong.
public struct S3ObjectURL: Sendable, Equatable {
    public var bucket: String
    /// The key, without a leading slash; empty for the bucket itself.
    public var key: String

    /// Parses `s3://BUCKET[/KEY]`; nil for another scheme or no bucket.
    public init?(_ url: String) {
        guard Self.hasScheme(url) else { return nil }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard slash > rest.startIndex, !rest[..<slash].contains(where: { "?#@:".contains($0) }) else { return nil }
        bucket = String(rest[..<slash])
        key = slash == rest.endIndex ? "" : String(rest[rest.index(after: slash)...])
    }

    /// Whether `url` starts with `s3://`, in any case, and goes on. Compared
    /// as bytes: `prefix(5).lowercased()` walked graphemes and made two
    /// strings, 1 k instructions for each of a cold URL's two looks.
    private static func hasScheme(_ url: String) -> Bool {
        var utf8 = url.utf8.makeIterator()
        for expected in "s3://".utf8 {
            guard let byte = utf8.next(), (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected else {
                return false
            }
        }
        return utf8.next() != nil
    }

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// The object's http(s) URL.
    public func httpURL(endpoint: String?, region: String) -> String {
        if let endpoint {
            let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            return "\(base)/\(bucket)/\(key)"
        }
        if bucket.contains(".") { return "https://s3.\(region).amazonaws.com/\(bucket)/\(key)" }
        return "https://\(bucket).s3.\(region).amazonaws.com/\(key)"
    }
}
