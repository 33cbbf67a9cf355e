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
        guard URLScheme.starts(url, with: "s3://") else { return nil }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard slash > rest.startIndex, !rest[..<slash].contains(where: { "?#@:".contains($0) }) else { return nil }
        bucket = String(rest[..<slash])
        key = slash == rest.endIndex ? "" : String(rest[rest.index(after: slash)...])
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
