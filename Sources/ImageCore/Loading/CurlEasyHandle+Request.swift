internal import CCurl

extension CurlEasyHandle {
    /// Sets every option a download needs: the URL, protocols and redirects,
    /// timeouts, the size limit, TLS, authentication, proxy, cookies, the
    /// method and body, and the request headers plus `extraHeaders`. Throws
    /// if libcurl refuses one. The corresponding C function is `curl_easy_setopt`.
    func apply(
        _ request: DownloadRequest, settings: Downloader.Configuration, share: UnsafeMutableRawPointer?,
        extraHeaders: [HTTPHeader]
    ) throws {
        var extraHeaders = extraHeaders
        // Sent as WHATWG parsing reads it (a space in the path is %20; man
        // page, CACHE KEYS), as the key is made: libcurl refuses raw spaces.
        try set(CURLOPT_URL, URLNormalization.requestForm(request.url))
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 1)
        try set(CURLOPT_MAXREDIRS, request.maxRedirects)
        // The stall timeout (`--timeout`) is the loop's own timer
        // (`CurlTransfer.stalled`): libcurl's low-speed check averages over a
        // window and gave up seconds late. `--max-time` is libcurl's total.
        try set(CURLOPT_TIMEOUT_MS, request.maxTime.map { Int($0 * 1000) } ?? 0)
        try set(
            CURLOPT_CONNECTTIMEOUT_MS, Int((request.connectTimeout ?? DownloadRequest.defaultConnectTimeout) * 1000))
        try set(CURLOPT_MAXFILESIZE_LARGE, request.maxBytes)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_SSL_VERIFYPEER, request.allowsInsecureTLS ? 0 : 1)
        try set(CURLOPT_SSL_VERIFYHOST, request.allowsInsecureTLS ? 0 : 2)
        try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Over https, ALPN tells within the TLS handshake whether a
        // connection can multiplex (HTTP/2), so waiting for that answer costs
        // one handshake and saves a connection per stream. Plain http has no
        // ALPN: libcurl would learn it only when the first transfer ends, and
        // every other transfer to the host would wait for it.
        if Self.isHTTPS(request.url) {
            try set(CURLOPT_PIPEWAIT, 1)
        }
        if let credentials = request.credentials {
            try set(CURLOPT_USERPWD, credentials)
            if let provider = request.awsSigV4 {
                // Sets CURLAUTH_AWS_SIGV4 itself.
                try set(CURLOPT_AWS_SIGV4, provider)
                extraHeaders.append(Self.contentHash(request, provider: provider))
            } else {
                // CURLAUTH_BASIC is 1; the macro is a cast expression Swift does not import.
                try set(CURLOPT_HTTPAUTH, 1)
            }
            try set(CURLOPT_UNRESTRICTED_AUTH, 0)
        }
        if let proxy = request.proxy { try set(CURLOPT_PROXY, proxy) }
        if let cookieJar = settings.cookieJar {
            try set(CURLOPT_COOKIEFILE, cookieJar)
            try set(CURLOPT_COOKIEJAR, cookieJar)
        }
        if let share { try set(CURLOPT_SHARE, pointer: share) }
        if request.method != "GET" { try set(CURLOPT_CUSTOMREQUEST, request.method) }
        if let body = request.uploadBody {
            try setUploadBody(body)
            extraHeaders.append(HTTPHeader(name: "Content-Type", value: "application/octet-stream"))
            // "Expect:" saves the 100-continue round trip. Not when signing:
            // curl 7.88 signs the empty header it then does not send, and
            // the server's signature differs (403).
            if request.awsSigV4 == nil || request.credentials == nil {
                extraHeaders.append(HTTPHeader(name: "Expect", value: ""))
            }
        }
        var headers = request.effectiveHeaders
        if request.headerValue("Accept") == nil {
            headers.append(HTTPHeader(name: "Accept", value: AcceptHeader.value))
        }
        try setHeaders(headers + extraHeaders)
    }

    /// Whether `url` starts with `https://`, in any case. Compared as bytes:
    /// `prefix(8).lowercased()` walked graphemes and made two strings a transfer.
    static func isHTTPS(_ url: String) -> Bool {
        let scheme = url.utf8.prefix(8)
        guard scheme.count == 8, url.utf8.count > 8 else { return false }
        return zip(scheme, "https://".utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }

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
