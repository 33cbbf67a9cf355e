internal import CCurl
internal import CImageCoreShims

/// libcurl is loaded (dlopen) and `curl_global_init` run once, and only when
/// the network is needed: a warm cache hit never pays for either.
package enum CurlGlobal {
    private static let outcome: String? = {
        var message = [CChar](repeating: 0, count: 256)
        if imgcache_curl_load(&message) != 0 {
            return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return imgcache_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK ? nil : "curl_global_init failed"
    }()

    /// Keeps GnuTLS, which libcurl's dependencies load, from initialising
    /// itself: imgcache's TLS is OpenSSL's. Call at start, before any thread;
    /// the corresponding C function is `setenv` (`GNUTLS_NO_IMPLICIT_INIT`).
    package static func prepareProcess() {
        imgcache_curl_prepare_process()
    }

    /// Loads and initialises libcurl on first call; throws if it cannot.
    /// The corresponding C functions are `dlopen` and `curl_global_init`.
    static func initializeOnce() throws {
        if let outcome { throw ImageCoreError(.failure, outcome) }
    }
}
