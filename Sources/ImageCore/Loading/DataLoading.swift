/// What came back from the server for a successful (2xx) download.
public struct DownloadResponse: Sendable {
    /// The fields, in one box its copies share (`CopyOnWriteBox`): the
    /// response is handed from the transfer through a `Result`, the run's
    /// stages and what it holds to the store, and as nine fields each copy
    /// and destroy went through value witnesses.
    private var box: CopyOnWriteBox<Fields>

    private struct Fields: Sendable {
        var status: Int
        var effectiveURL: String
        var headers: ResponseHeaders
        var bodyPath: String
        var bodyLock: BodyLock?
        var bodySize: Int
        var body: [UInt8]?
        var requestTime: Double
        var responseTime: Double
    }

    /// A response with the given fields.
    public init(
        status: Int, effectiveURL: String, headers: ResponseHeaders, bodyPath: String, bodyLock: BodyLock? = nil,
        bodySize: Int, body: [UInt8]? = nil, requestTime: Double, responseTime: Double
    ) {
        box = CopyOnWriteBox(
            Fields(
                status: status, effectiveURL: effectiveURL, headers: headers, bodyPath: bodyPath, bodyLock: bodyLock,
                bodySize: bodySize, body: body, requestTime: requestTime, responseTime: responseTime))
    }

    /// The final HTTP status.
    public var status: Int {
        get { box.fields.status }
        set { box.fields.status = newValue }
    }
    /// The URL after redirects.
    public var effectiveURL: String {
        get { box.fields.effectiveURL }
        set { box.fields.effectiveURL = newValue }
    }
    /// The final response's header fields that imgcache reads (validators,
    /// freshness, Vary, Content-Type, Content-Range, Retry-After, S3's
    /// bucket region: `ResponseHeaders.Name`).
    public var headers: ResponseHeaders {
        get { box.fields.headers }
        set { box.fields.headers = newValue }
    }
    /// The temporary file holding the body; the caller owns it now.
    public var bodyPath: String {
        get { box.fields.bodyPath }
        set { box.fields.bodyPath = newValue }
    }
    /// The lock on `bodyPath` when it is the cache's shared partial body:
    /// release it once the body is renamed into the cache or removed (it is
    /// released anyway when the last copy of the response goes).
    public var bodyLock: BodyLock? {
        get { box.fields.bodyLock }
        set { box.fields.bodyLock = newValue }
    }
    /// Bytes in the body.
    public var bodySize: Int {
        get { box.fields.bodySize }
        set { box.fields.bodySize = newValue }
    }
    /// The body's bytes, also in `bodyPath`; nil when part of them came from
    /// an earlier transfer (a resumed body): then read the file.
    public var body: [UInt8]? {
        get { box.fields.body }
        set { box.fields.body = newValue }
    }
    /// When the request was sent and the response arrived (seconds since 1970).
    public var requestTime: Double {
        get { box.fields.requestTime }
        set { box.fields.requestTime = newValue }
    }
    /// When the response was complete.
    public var responseTime: Double {
        get { box.fields.responseTime }
        set { box.fields.responseTime = newValue }
    }
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
