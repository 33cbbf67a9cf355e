import Synchronization

/// Downloads over libcurl's multi interface (SDWebImageDownloader's job):
/// at most `maxConcurrentDownloads` transfers at once, in priority then FIFO
/// or LIFO order, each body streamed into a temporary file; per host, new
/// requests spaced by `requestRate` and paused while a server's 429 or 503
/// Retry-After runs; all together within `maxBytesPerSecond`.
///
/// Thread safety: `download` may be called from any task, concurrently.
/// Cancelling the calling task cancels its transfer.
public final class Downloader: DataLoading {
    /// The order in which queued downloads of equal priority start.
    public enum Order: String, Sendable {
        /// First queued, first started.
        case fifo
        /// Last queued, first started (SDWebImage's LIFO execution order).
        case lifo
    }

    /// Settings shared by every transfer of one downloader.
    public struct Configuration: Sendable {
        /// Where bodies are written while they download; must be on the same
        /// file system as the cache so a finished body can be renamed into it.
        public var temporaryDirectory: String
        /// Most transfers running at once.
        public var maxConcurrentDownloads = Defaults.concurrentDownloads
        /// Most connections to one host.
        public var maxConnectionsPerHost = Defaults.connectionsPerHost
        /// Start order among equal priorities.
        public var order = Order.fifo
        /// The whole run's download rate, all paced transfers together, in
        /// bytes per second (`--limit-rate`); nil: no limit.
        public var maxBytesPerSecond: Int?
        /// New requests per host (`--rate`); nil: no limit.
        public var requestRate: RequestRate?
        /// Netscape-format cookie file read before and written after transfers.
        public var cookieJar: String?
        /// Where `--verbose` events go.
        public var events = EventLog.silent
        /// The longest the loop waits in `curl_multi_poll` with no transfer
        /// running, and with some (stall checks run between waits). A safety
        /// net, not how work arrives: a new transfer wakes an idle loop
        /// (`CurlMultiLoop.Inbox.wantsWork`). Tests make them an hour, so a
        /// missed wake-up hangs rather than passing a second late.
        var longestIdlePoll = 1.0
        var longestBusyPoll = 0.25
        /// How `s3://BUCKET/KEY` URLs are reached and signed.
        public var aws = AWSSettings()
        /// The proxy of a request that names none: `""` (none) when the
        /// environment names none either, else nil, libcurl reading it at
        /// each transfer. Read by `Downloader.init` (`ProxyEnvironment`),
        /// not here: a warm hit makes a configuration and no downloader.
        var proxyUnlessNamed: String?

        /// Settings writing bodies into `temporaryDirectory`.
        public init(temporaryDirectory: String) {
            self.temporaryDirectory = temporaryDirectory
        }
    }

    private let loop: CurlMultiLoop
    private let nextID = Atomic<UInt64>(0)
    private let aws: AWSSettings

    /// Creates a downloader; libcurl is initialised here, not before, so
    /// commands that never reach the network never pay for it.
    public init(configuration: Configuration) throws {
        var configuration = configuration
        configuration.proxyUnlessNamed = ProxyEnvironment.proxyUnlessNamed()
        loop = try CurlMultiLoop(settings: configuration)
        aws = configuration.aws
    }

    deinit {
        loop.shutDown(waiting: false)
    }

    /// Cancels what is left and waits until libcurl is cleaned up (the
    /// cookie jar written). Call before the process exits.
    public func close() {
        loop.shutDown(waiting: true)
    }

    /// An `s3://BUCKET/KEY` URL is fetched from its http(s) endpoint,
    /// signed (`Configuration.aws`); a request to sign (`awsSigV4`) without
    /// credentials (`-u`) is signed with the AWS credentials found, and
    /// fails without a request if those cannot be used (partial ones).
    public func download(_ asked: DownloadRequest) async throws -> DownloadResponse {
        if let refusal = aws.credentialRefusal(asked) { throw refusal }
        let request = aws.signing(asked)
        guard request.url.lowercased().hasPrefix("http://") || request.url.lowercased().hasPrefix("https://") else {
            // Why: an s3:// URL (origin or store) gets here unresolvable only
            // through an endpoint without a scheme from the environment
            // (|endpoint= is checked when parsed); name it, not the URL's kind.
            if let endpoint = aws.endpoint, !request.url.contains("://") {
                throw ImageCoreError(
                    .failure,
                    "the S3 endpoint '\(RemoteStorageURL.masked(endpoint))' (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) "
                        + "is not an http or https URL")
            }
            throw ImageCoreError(.failure, "only http, https and s3 URLs are supported")
        }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let body = try loop.openBodyAhead(for: request)
        do {
            defer { SanitizerHandOff.receive() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    loop.enqueue(id: id, request: request, body: body, continuation: continuation)
                }
            } onCancel: {
                loop.cancel(id: id)
            }
        } catch let error as ImageCoreError where error.httpStatus == 403 && aws.sendsUnsigned(asked) {
            // Why: a private bucket's 403 to an unsigned request says nothing
            // of the cause, which is on this machine.
            throw error.noting(AWSSettings.unsignedNote)
        }
    }

    /// `request` as `download` sends it: signed (`AWSSettings.signing`).
    public func requestAsSent(_ request: DownloadRequest) -> DownloadRequest {
        aws.signing(request)
    }

    /// Cancels every queued and running transfer; their callers get `.interrupted`.
    public func cancelAll() {
        loop.cancelAll()
    }
}
