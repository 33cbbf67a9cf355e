internal import CCurl

extension CurlEasyHandle {
    /// Every option `apply` sets but the URL and the request headers: the
    /// same for every transfer of a run (its timeouts, size limit, TLS,
    /// credentials, proxy, cookie jar), and for each host whether to wait
    /// for multiplexing. A kept handle whose last transfer had equal ones
    /// keeps them and is given only the URL and, when they differ, the
    /// headers; any other is reset first, so nothing of one request reaches
    /// the next. Why: `curl_easy_reset` and setting all of them again were
    /// 16 k instructions a URL (callgrind, `scripts/bench-counts.sh cold`).
    struct TransferOptions: Equatable {
        var method: String
        var maxRedirects: Int
        var maxTime: Double?
        var connectTimeout: Double?
        var maxBytes: Int
        var allowsInsecureTLS: Bool
        var waitsForMultiplexing: Bool
        var credentials: String?
        var awsSigV4: String?
        var proxy: String?
        var cookieJar: String?
        var share: UnsafeMutableRawPointer?

        init(_ request: DownloadRequest, settings: Downloader.Configuration, share: UnsafeMutableRawPointer?) {
            method = request.method
            maxRedirects = request.maxRedirects
            maxTime = request.maxTime
            connectTimeout = request.connectTimeout
            maxBytes = request.maxBytes
            allowsInsecureTLS = request.allowsInsecureTLS
            waitsForMultiplexing = URLScheme.starts(request.url, with: "https://")
            credentials = request.credentials
            awsSigV4 = request.awsSigV4
            proxy = request.proxy ?? settings.proxyUnlessNamed
            cookieJar = settings.cookieJar
            self.share = share
        }
    }

    /// Sets every option a download needs: the URL, protocols and redirects,
    /// timeouts, the size limit, TLS, authentication, proxy, cookies, the
    /// method and body, and the request headers plus `extraHeaders`; on a
    /// handle that kept its last transfer's `TransferOptions`, equal to
    /// these, only the URL and the headers. Throws if libcurl refuses one.
    /// The corresponding C function is `curl_easy_setopt`.
    func apply(
        _ request: DownloadRequest, settings: Downloader.Configuration, share: UnsafeMutableRawPointer?,
        extraHeaders: [HTTPHeader]
    ) throws {
        let options = TransferOptions(request, settings: settings, share: share)
        // A body to send is not among the options kept: a request with one
        // sets all, or a handle kept from one without it would send none.
        if keptOptions != options || request.uploadBody != nil {
            resetUnlessNew()
            try set(options, uploadBody: request.uploadBody)
        }
        // A body to send is copied by libcurl and stays with the handle: the next transfer starts from a reset.
        keptOptions = request.uploadBody == nil ? options : nil
        // Sent as WHATWG parsing reads it (a space in the path is %20; man
        // page, CACHE KEYS), as the key is made: libcurl refuses raw spaces.
        try set(CURLOPT_URL, URLNormalization.requestForm(request.url))
        try setHeaders(Self.headers(request, extraHeaders: extraHeaders))
    }

    /// The options of `TransferOptions`, on a handle with libcurl's defaults.
    private func set(_ options: TransferOptions, uploadBody: [UInt8]?) throws {
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 1)
        try set(CURLOPT_MAXREDIRS, options.maxRedirects)
        // The stall timeout (`--timeout`) is the loop's own timer
        // (`CurlTransfer.stalled`): libcurl's low-speed check averages over a
        // window and gave up seconds late. `--max-time` is libcurl's total.
        try set(CURLOPT_TIMEOUT_MS, options.maxTime.map { Int($0 * 1000) } ?? 0)
        try set(
            CURLOPT_CONNECTTIMEOUT_MS, Int((options.connectTimeout ?? DownloadRequest.defaultConnectTimeout) * 1000))
        try set(CURLOPT_MAXFILESIZE_LARGE, options.maxBytes)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_SSL_VERIFYPEER, options.allowsInsecureTLS ? 0 : 1)
        try set(CURLOPT_SSL_VERIFYHOST, options.allowsInsecureTLS ? 0 : 2)
        try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Over https, ALPN tells within the TLS handshake whether a
        // connection can multiplex (HTTP/2), so waiting for that answer costs
        // one handshake and saves a connection per stream. Plain http has no
        // ALPN: libcurl would learn it only when the first transfer ends, and
        // every other transfer to the host would wait for it.
        if options.waitsForMultiplexing {
            try set(CURLOPT_PIPEWAIT, 1)
        }
        if let credentials = options.credentials {
            try set(CURLOPT_USERPWD, credentials)
            if let provider = options.awsSigV4 {
                // Sets CURLAUTH_AWS_SIGV4 itself.
                try set(CURLOPT_AWS_SIGV4, provider)
            } else {
                // CURLAUTH_BASIC is 1; the macro is a cast expression Swift does not import.
                try set(CURLOPT_HTTPAUTH, 1)
            }
            try set(CURLOPT_UNRESTRICTED_AUTH, 0)
        }
        if let proxy = options.proxy {
            try set(CURLOPT_PROXY, proxy)
            // No proxy, so no host to exempt from it: libcurl need not read `no_proxy` either.
            if proxy.isEmpty { try set(CURLOPT_NOPROXY, "") }
        }
        if let cookieJar = options.cookieJar {
            try set(CURLOPT_COOKIEFILE, cookieJar)
            try set(CURLOPT_COOKIEJAR, cookieJar)
        }
        if let share = options.share { try set(CURLOPT_SHARE, pointer: share) }
        if options.method != "GET" { try set(CURLOPT_CUSTOMREQUEST, options.method) }
        if let uploadBody { try setUploadBody(uploadBody) }
    }

    /// The request headers sent: the request's (`effectiveHeaders`), `Accept`
    /// unless it names one, and `extraHeaders` with those signing and a body need.
    static func headers(_ request: DownloadRequest, extraHeaders: [HTTPHeader]) -> [HTTPHeader] {
        var headers: [HTTPHeader]
        if request.headers.isEmpty {
            headers = defaultHeadersWithAccept
        } else {
            headers = request.effectiveHeaders
            if request.headerValue("Accept") == nil {
                headers.append(HTTPHeader(name: "Accept", value: AcceptHeader.value))
            }
        }
        headers += extraHeaders
        if request.credentials != nil, let provider = request.awsSigV4 {
            headers.append(contentHash(request, provider: provider))
        }
        if request.uploadBody != nil {
            headers.append(HTTPHeader(name: "Content-Type", value: "application/octet-stream"))
            // "Expect:" saves the 100-continue round trip. Not when signing:
            // curl 7.88 signs the empty header it then does not send, and
            // the server's signature differs (403).
            if request.awsSigV4 == nil || request.credentials == nil {
                headers.append(HTTPHeader(name: "Expect", value: ""))
            }
        }
        return headers
    }

    /// A request's headers when it adds none: the defaults and `Accept`.
    private static let defaultHeadersWithAccept =
        DownloadRequest.defaultHeaders + [HTTPHeader(name: "Accept", value: AcceptHeader.value)]

    /// `x-amz-content-sha256` (the provider's `x-PROVIDER2-content-sha256`):
    /// S3 refuses a signed request without it, and Debian 12's curl 7.88 does not
    /// add it. The body's SHA-256 (the empty body's for GET and DELETE); as
    /// one of the request's headers, curl signs it.
    static func contentHash(_ request: DownloadRequest, provider: String) -> HTTPHeader {
        let parts = provider.split(separator: ":", omittingEmptySubsequences: false)
        let name = (parts.count > 1 && !parts[1].isEmpty ? parts[1] : parts[0]).lowercased()
        return HTTPHeader(name: "x-\(name)-content-sha256", value: Digest.sha256Hex(request.uploadBody ?? []))
    }
}
