/// The one error type ImageCore throws. Its `kind` says which documented exit
/// status the command line maps it to; `message` is the human cause, without
/// the URL (the caller knows which URL it asked for).
public struct ImageCoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Broad classes of failure, one per exit status of the command line.
    public enum Kind: String, Sendable, CaseIterable {
        /// DNS, connect, TLS, timeout, connection lost: transient.
        case network
        /// The server answered with an error status.
        case http
        /// Not an image, unsupported, corrupt, or over a limit.
        case image
        /// The URL is on the failed-URL list.
        case failedBefore = "failed-before"
        /// The URL is not cached and the network may not be used.
        case notCached = "not-cached"
        /// The cache could not be read or written.
        case cacheIO = "cache-io"
        /// Standard output, an `-o` file or a file under `--output-dir`
        /// could not be written (disk full, I/O error): curl's exit 23.
        case output
        /// A setting or argument is malformed (a bad value in imgcache.conf).
        case usage
        /// The operation was cancelled (SIGINT, SIGTERM).
        case interrupted
        /// Anything else.
        case failure
    }

    /// The fields, in one box its copies share (`CopyOnWriteBox`): as eight
    /// fields, an `ImageCoreError?` (an abort reason, a check's verdict, a
    /// `Result`'s failure, nil on a good download) was copied and destroyed
    /// through value witnesses, where one reference is a retain or release
    /// (0.6 k instructions a cold URL).
    private var box: CopyOnWriteBox<Fields>

    private struct Fields: Sendable, Equatable {
        var kind: Kind
        var message: String
        var httpStatus: Int?
        var isTransient: Bool
        var retryAfter: Double?
        var serviceCode: String?
        var exceededLimit: Limit?
        var transportFault: TransportFault?
    }

    /// Which class of failure this is.
    public var kind: Kind { box.fields.kind }
    /// What happened, in words for a person.
    public private(set) var message: String {
        get { box.fields.message }
        set { box.fields.message = newValue }
    }
    /// The HTTP status, for `.http` errors and HTTP-level transient failures.
    public var httpStatus: Int? { box.fields.httpStatus }
    /// Whether retrying later may succeed; transient failures are never put
    /// on the failed-URL list.
    public var isTransient: Bool { box.fields.isTransient }
    /// How long the server asked us to wait before retrying (Retry-After), in seconds.
    public var retryAfter: Double? {
        get { box.fields.retryAfter }
        set { box.fields.retryAfter = newValue }
    }
    /// The error code an S3 server put in its error document
    /// (`AccessDenied`, `NoSuchBucket`, `NoSuchKey`), for `.http` errors.
    public var serviceCode: String? {
        get { box.fields.serviceCode }
        set { box.fields.serviceCode = newValue }
    }
    /// The limit an image or body was over, for `.image` errors that are
    /// about a limit: the run's limits decide whether the failure is
    /// remembered (man page, FAILED URLS).
    public var exceededLimit: Limit? {
        get { box.fields.exceededLimit }
        set { box.fields.exceededLimit = newValue }
    }
    /// How a network failure happened, where the transport could tell
    /// apart one that may pass (a remote store's circuit breaker judges by it).
    var transportFault: TransportFault? {
        get { box.fields.transportFault }
        set { box.fields.transportFault = newValue }
    }

    /// A network failure that says nothing against the next request.
    enum TransportFault: Sendable, Equatable {
        /// No answer within the time allowed (connecting included).
        case timedOut
        /// The connection broke mid-request or mid-answer.
        case connectionLost
    }

    /// A limit on what is accepted, by its option's name.
    public enum Limit: String, Sendable, CaseIterable {
        case maxBytes = "max-bytes"
        case pixels = "limit-pixels"
        case frames = "limit-frames"
        case totalPixels = "limit-total-pixels"
        case scans = "limit-scans"
    }

    /// An `.image` error over `limit`.
    static func over(_ limit: Limit, _ message: String) -> ImageCoreError {
        var error = ImageCoreError(.image, message)
        error.exceededLimit = limit
        return error
    }

    /// Creates an error; `isTransient` defaults to true for network errors only.
    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, isTransient: Bool? = nil) {
        box = CopyOnWriteBox(
            Fields(
                kind: kind, message: message, httpStatus: httpStatus, isTransient: isTransient ?? (kind == .network)))
    }

    public static func == (lhs: ImageCoreError, rhs: ImageCoreError) -> Bool {
        lhs.box.fields == rhs.box.fields
    }

    public var description: String { message }

    /// This error with `note` added to its message in parentheses: what else
    /// went wrong on the way (a cached copy that could not be read).
    func noting(_ note: String) -> ImageCoreError {
        var noted = self
        noted.message += " (\(note))"
        return noted
    }

    /// An HTTP error status. 408, 429, 500, 502, 503 and 504 are transient, as
    /// HTTP defines them and as curl's `--retry` treats them.
    /// With `serviceCode` (an S3 error document's), the message names the
    /// code instead of the reason phrase: `HTTP 403 AccessDenied`, and
    /// says what the code means where its name does not say what to put
    /// right (`RequestTimeTooSkewed`: this machine's clock).
    public static func httpStatus(_ status: Int, serviceCode: String? = nil) -> ImageCoreError {
        let transient = transientStatuses.contains(status)
        var error = ImageCoreError(
            .http, "HTTP \(status)\((serviceCode ?? reasonPhrase(status)).map { " \($0)" } ?? "")",
            httpStatus: status, isTransient: transient)
        error.serviceCode = serviceCode
        if error.blamesTheClock {
            error.message += " (this machine's clock is further from the server's than it allows: 15 minutes on AWS)"
        }
        return error
    }

    /// Whether the server refused the request for this machine's clock
    /// (S3's 403 `RequestTimeTooSkewed`: the signature's time too far from
    /// its own), not for anything of the URL's or the credentials': the same
    /// request succeeds once the clock is right, so it is not the URL's
    /// failure to remember.
    public var blamesTheClock: Bool { httpStatus == 403 && serviceCode == "RequestTimeTooSkewed" }

    /// The HTTP statuses that say "not now" rather than "no".
    static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    private static func reasonPhrase(_ status: Int) -> String? {
        switch status {
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: nil
        }
    }
}
