/// What came back from the server for a successful (2xx) download.
public struct DownloadResponse: Sendable {
    /// The final HTTP status.
    public var status: Int
    /// The URL after redirects.
    public var effectiveURL: String
    /// The final response's header fields that imgcache reads (validators,
    /// freshness, Vary, Content-Type, Content-Range, Retry-After, S3's
    /// bucket region: `ResponseHeaders.Name`).
    public var headers: ResponseHeaders
    /// The temporary file holding the body; the caller owns it now.
    public var bodyPath: String
    /// The lock on `bodyPath` when it is the cache's shared partial body:
    /// release it once the body is renamed into the cache or removed (it is
    /// released anyway when the last copy of the response goes).
    public var bodyLock: BodyLock?
    /// Bytes in the body.
    public var bodySize: Int
    /// The body's bytes, also in `bodyPath`; nil when part of them came from
    /// an earlier transfer (a resumed body): then read the file.
    public var body: [UInt8]?
    /// When the request was sent and the response arrived (seconds since 1970).
    public var requestTime: Double
    /// When the response was complete.
    public var responseTime: Double
}

/// The data-loading seam.
///
/// Thread safety: implementations may be called from any task concurrently;
/// each call is one transfer (coalescing of identical requests is the
/// caller's business: `NetworkFetch`'s in-flight loads, `InflightLoads`). `cancelAll` may be called from
/// any thread at any time, `close` once, when no download is running.
public protocol DataLoading: Sendable {
    /// Downloads `request`'s URL into a temporary file. Throws
    /// `ImageCoreError` (`.network`, `.http`, `.image` for a body that is
    /// clearly not an image or too large, `.cacheIO`, `.interrupted`).
    func download(_ request: DownloadRequest) async throws -> DownloadResponse
    /// `request` with what `download` adds before sending it (the AWS
    /// signature and the credentials it found), for what keys a failure on
    /// the request (`FailedURLRegistry.requestDigest`). Creates nothing.
    func requestAsSent(_ request: DownloadRequest) -> DownloadRequest
    /// Cancels every queued and running download, and every later one; their
    /// callers get `.interrupted` (SIGINT).
    func cancelAll()
    /// Releases what the loader holds (connections, the cookie jar written
    /// out) and waits until that is done. Call before the process exits.
    func close()
}

extension DataLoading {
    /// A loader that adds nothing sends the request as it is.
    public func requestAsSent(_ request: DownloadRequest) -> DownloadRequest { request }
}
