internal import CCurl
internal import CImageCoreShims

/// Turns libcurl result codes into `ImageCoreError`s of the documented kinds.
enum CurlError {
    /// The error for a failed transfer. The corresponding C function for the
    /// fallback text is `curl_easy_strerror`.
    /// `status` is the last response's (0 if none): a malformed URL after a
    /// redirect is the server's `Location`, not the caller's URL.
    static func error(for code: CURLcode, detail: String, status: Int = 0) -> ImageCoreError {
        let text = detail.isEmpty ? String(cString: imgcache_curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return ImageCoreError(.network, "could not resolve host (\(text))")
        case CURLE_COULDNT_CONNECT:
            return ImageCoreError(.network, "could not connect (\(text))")
        case CURLE_OPERATION_TIMEDOUT:
            var error = ImageCoreError(.network, "timed out (\(text))")
            error.transportFault = .timedOut
            return error
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS:
            return ImageCoreError(.network, "TLS error (\(text))")
        case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            var error = ImageCoreError(.network, "connection lost (\(text))")
            error.transportFault = .connectionLost
            return error
        case CURLE_TOO_MANY_REDIRECTS:
            return ImageCoreError(.http, "too many redirects (\(text))", isTransient: false)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return ImageCoreError(.http, "redirected to a URL that is not http or https (\(text))", isTransient: false)
        case CURLE_FILESIZE_EXCEEDED:
            return ImageCoreError.over(.maxBytes, "body too large (\(text))")
        case CURLE_URL_MALFORMAT where (300..<400).contains(status):
            // A redirect imgcache cannot follow, as one off http and https is:
            // the server's answer, not the user's input.
            return ImageCoreError(.http, "redirected to a URL that cannot be parsed (\(text))", isTransient: false)
        case CURLE_URL_MALFORMAT:
            // A URL no parser accepts is bad input, as on the command line.
            return ImageCoreError(.usage, "malformed URL (\(text))")
        case CURLE_WEIRD_SERVER_REPLY:
            return ImageCoreError(.network, "invalid HTTP response (\(text))")
        default:
            return ImageCoreError(.network, text)
        }
    }
}
