/// The Cache-Control directives a private cache acts on (RFC 9111 §5.2.2,
/// RFC 5861, RFC 8246). Unknown directives are ignored, as the RFC asks.
public struct CacheControl: Sendable, Equatable {
    /// `max-age`, in seconds.
    public var maxAge: Double?
    /// `no-cache`: store, but revalidate before every use.
    public var noCache = false
    /// `no-store`: do not store at all.
    public var noStore = false
    /// `must-revalidate`: never use stale, even offline or on error.
    public var mustRevalidate = false
    /// `immutable`: do not revalidate while fresh, even on `--refresh`.
    public var immutable = false
    /// `stale-while-revalidate`, in seconds past freshness.
    public var staleWhileRevalidate: Double?
    /// `stale-if-error`, in seconds past freshness.
    public var staleIfError: Double?

    /// Parses a Cache-Control header value (several headers joined by commas).
    public init(_ header: String?) {
        guard let header else { return }
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            // A bare "=" splits into nothing: no directive (found by fuzzing).
            guard let first = pair.first else { continue }
            let name = first.trimmingSpaces().lowercased()
            let seconds =
                pair.count == 2 ? Double(pair[1].trimmingSpaces().filter { $0 != "\"" }).map { max(0, $0) } : nil
            switch name {
            case "max-age": maxAge = maxAge ?? seconds
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "immutable": immutable = true
            case "stale-while-revalidate": staleWhileRevalidate = seconds
            case "stale-if-error": staleIfError = seconds
            default: continue
            }
        }
    }
}
