/// One HTTP request header.
public struct HTTPHeader: Sendable, Equatable {
    /// The field name, as given.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses "Name: value"; nil if there is no colon or the name is empty.
    public init?(parsing line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingSpaces()
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        self.init(name: String(name), value: String(line[line.index(after: colon)...].trimmingSpaces()))
    }
}

/// Everything that shapes one download (SDWebImageDownloaderOptions and the
/// downloader's per-request settings as one value).
public struct DownloadRequest: Sendable {
    /// Scheduling priority among queued downloads.
    public enum Priority: Int, Sendable, Comparable {
        case low, normal, high
        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The fields, in one box shared by the request's copies
    /// (`CopyOnWriteBox`): a load copies its request about a dozen times (into
    /// its run, the transfer, the signing, the record), each a retain of the
    /// box, not 216 bytes and nine retains. The fields are documented at their
    /// accessors below.
    private var storage: CopyOnWriteBox<Fields>

    private struct Fields: Sendable {
        var url: String
        var method = "GET"
        var uploadBody: [UInt8]?
        var expectsImage = true
        var keepsBodyInMemory = false
        var headers: [HTTPHeader] = []
        var credentials: String?
        var awsSigV4: String?
        var timeout: Double?
        var connectTimeout: Double?
        var maxTime: Double?
        var isPaced = true
        var maxBytes: Int = DownloadRequest.defaultMaxBytes
        var maxRedirects = Defaults.maxRedirects
        var allowsInsecureTLS = false
        var proxy: String?
        var priority: Priority = .normal
        var resumableBodyPath: String?
        var onProgress: (@Sendable (_ received: Int, _ expected: Int?) -> Void)?
    }

    /// An http or https URL.
    public var url: String {
        get { storage.fields.url }
        set { storage.fields.url = newValue }
    }
    /// The HTTP method: GET, or PUT and DELETE for remote storage.
    public var method: String {
        get { storage.fields.method }
        set { storage.fields.method = newValue }
    }
    /// The body sent with a PUT.
    public var uploadBody: [UInt8]? {
        get { storage.fields.uploadBody }
        set { storage.fields.uploadBody = newValue }
    }
    /// Whether the body must look like an image (sniffed as it arrives);
    /// false for remote-storage objects, which carry their own header.
    public var expectsImage: Bool {
        get { storage.fields.expectsImage }
        set { storage.fields.expectsImage = newValue }
    }
    /// Whether the body is kept in memory only, never written to a file
    /// (`DownloadResponse.bodyPath` is then empty): remote-storage objects,
    /// read whole and checked before anything of them is stored. Saves a
    /// file's creation and removal per object.
    public var keepsBodyInMemory: Bool {
        get { storage.fields.keepsBodyInMemory }
        set { storage.fields.keepsBodyInMemory = newValue }
    }
    /// Extra request headers.
    public var headers: [HTTPHeader] {
        get { storage.fields.headers }
        set { storage.fields.headers = newValue }
    }
    /// "user:password" for HTTP authentication; sent only to the original host.
    /// With `awsSigV4`, "KEY:SECRET".
    public var credentials: String? {
        get { storage.fields.credentials }
        set { storage.fields.credentials = newValue }
    }
    /// Sign the request with AWS Signature Version 4 instead of sending
    /// `credentials` as Basic authentication: curl's `--aws-sigv4`
    /// `PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]]` (`aws:amz:us-east-1:s3`).
    public var awsSigV4: String? {
        get { storage.fields.awsSigV4 }
        set { storage.fields.awsSigV4 = newValue }
    }
    /// The stall timeout: seconds without a byte from the server (once the
    /// request has a connection) before the transfer is given up, as
    /// NSURLSession's request timeout and wget's read timeout. Nil: the
    /// cache's configured `timeout`, else `defaultTimeout`.
    public var timeout: Double? {
        get { storage.fields.timeout }
        set { storage.fields.timeout = newValue }
    }
    /// Seconds allowed to connect, TLS included. Nil: the configured
    /// `connect-timeout`, else `defaultConnectTimeout`.
    public var connectTimeout: Double? {
        get { storage.fields.connectTimeout }
        set { storage.fields.connectTimeout = newValue }
    }
    /// Total seconds for one attempt, as curl's `--max-time`. Nil: the
    /// configured `max-time`, else none.
    public var maxTime: Double? {
        get { storage.fields.maxTime }
        set { storage.fields.maxTime = newValue }
    }
    /// Whether the run's `--limit-rate` and `--rate` apply: true for images
    /// from their origins, false for remote storage (the user's own store).
    public var isPaced: Bool {
        get { storage.fields.isPaced }
        set { storage.fields.isPaced = newValue }
    }
    /// Largest body accepted, in bytes.
    public var maxBytes: Int {
        get { storage.fields.maxBytes }
        set { storage.fields.maxBytes = newValue }
    }
    /// Most redirects followed (only to http and https).
    public var maxRedirects: Int {
        get { storage.fields.maxRedirects }
        set { storage.fields.maxRedirects = newValue }
    }
    /// Skip TLS certificate and host name verification.
    public var allowsInsecureTLS: Bool {
        get { storage.fields.allowsInsecureTLS }
        set { storage.fields.allowsInsecureTLS = newValue }
    }
    /// Proxy URL; nil uses the `*_proxy` environment variables.
    public var proxy: String? {
        get { storage.fields.proxy }
        set { storage.fields.proxy = newValue }
    }
    /// Scheduling priority.
    public var priority: Priority {
        get { storage.fields.priority }
        set { storage.fields.priority = newValue }
    }
    /// Where to write the body so that, if the transfer breaks off, a later
    /// download of the same URL can resume it (see `PartialDownload`); nil
    /// writes to a private temporary file.
    public var resumableBodyPath: String? {
        get { storage.fields.resumableBodyPath }
        set { storage.fields.resumableBodyPath = newValue }
    }
    /// Called on the download thread as body bytes arrive, with the bytes
    /// received so far and the expected total when the server said. Must be quick.
    public var onProgress: (@Sendable (_ received: Int, _ expected: Int?) -> Void)? {
        get { storage.fields.onProgress }
        set { storage.fields.onProgress = newValue }
    }

    /// Whether `text` has curl's `--aws-sigv4` form: one to four fields
    /// separated by colons, each of letters, digits, `-`, `_` and `.`, the first not empty.
    public static func isValidAWSSigV4(_ text: String) -> Bool {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        return (1...4).contains(fields.count) && !fields[0].isEmpty
            && fields.allSatisfy { field in
                field.count <= 64
                    && field.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            }
    }
    /// The largest body accepted unless a run says otherwise (`Defaults.maxBytes`).
    public static let defaultMaxBytes = Defaults.maxBytes

    /// `timeout` when neither the request nor the configuration sets one.
    public static let defaultTimeout = Defaults.timeout
    /// `connectTimeout` when neither the request nor the configuration sets one.
    public static let defaultConnectTimeout = Defaults.connectTimeout

    /// The stall timeout that applies.
    public var effectiveTimeout: Double { timeout ?? Self.defaultTimeout }

    /// A request for `url` with the defaults. An image's URL is given
    /// through `ImageRequest` or `setURL`, which take its user info off.
    public init(url: String) {
        storage = CopyOnWriteBox(Fields(url: url))
    }

    /// Sets `url` to `given` without its `user:password@`, which becomes
    /// `credentials` unless they are set (`-u` wins, as in curl): the
    /// password is sent, never keyed, kept or printed with the URL.
    public mutating func setURL(_ given: String) {
        let (bare, userInfo) = URLUserInfo.split(given)
        url = bare
        if credentials == nil, let userInfo { credentials = userInfo }
    }

    /// Headers every request sends unless `headers` replaces them; the
    /// loader adds `Accept`, naming the formats the decoders present read
    /// (`AcceptHeader`). No Accept-Encoding: images are already compressed.
    public static let defaultHeaders = [
        HTTPHeader(name: "User-Agent", value: "imgcache/\(ImageCoreVersion.string)")
    ]

    /// The `Accept` value a `Vary: Accept` entry is matched with when the
    /// request sends the default header: the header imgcache sent before it
    /// was built from the decoders present. Whatever the default names now
    /// (another library installed, a format added), it counts as this one
    /// value, so entries stored under any default stay valid; `-H 'Accept: …'`
    /// is matched as sent. See the man page, CACHING.
    public static let varyDefaultAccept = "image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5"

    /// The headers sent: the defaults, replaced or extended by `headers`.
    public var effectiveHeaders: [HTTPHeader] {
        var result = Self.defaultHeaders
        for header in headers {
            result.removeAll { $0.name.lowercased() == header.name.lowercased() }
            result.append(header)
        }
        return result
    }

    /// The value sent for a header (name compared case-insensitively), if any.
    public func headerValue(_ name: String) -> String? {
        effectiveHeaders.last { $0.name.lowercased() == name.lowercased() }?.value
    }
}
