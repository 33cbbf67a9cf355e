internal import CCurl
internal import CImageCoreShims

/// A libcurl easy handle with typed options and facts; it owns the handle,
/// the request header list and the error buffer, and frees them in `deinit`.
/// Used on one thread at a time (the downloader's loop thread). Every call
/// goes through the C shims, because `curl_easy_setopt` and
/// `curl_easy_getinfo` are variadic.
final class CurlEasyHandle {
    /// The raw handle, for `curl_multi_add_handle` and to match a `CURLMsg`.
    let raw: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes the detailed error message here; it must outlive the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    /// A new handle, or nil if libcurl cannot make one. The corresponding C
    /// function is `curl_easy_init`.
    init?() {
        guard let raw = imgcache_curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer.initialize(to: 0)
    }

    /// The corresponding C functions are `curl_easy_cleanup` and `curl_slist_free_all`.
    deinit {
        imgcache_curl_easy_cleanup(raw)
        imgcache_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// The options the last `apply` set beyond the URL and the headers, when
    /// the next transfer may keep them; nil on a new or reset handle, or after
    /// a body to send.
    var keptOptions: TransferOptions?
    /// The headers `headerList` holds, as the last `setHeaders` was given them.
    private var listedHeaders: [HTTPHeader] = []
    /// Whether an option has been set since `curl_easy_init` or the last reset.
    private var isNew = true

    /// Puts every option back to libcurl's default, as a new handle has them,
    /// and frees the request header list, so that the handle can carry a
    /// transfer with other `TransferOptions`: `apply` and `setCallbacks` then
    /// set all that transfer needs. Kept by the handle (libcurl's
    /// documentation): its share, cookies, connection and DNS caches, which
    /// the multi handle owns for every transfer of ours anyway. Why not a new
    /// handle: `curl_easy_init` and `curl_easy_cleanup` were about 14 k
    /// instructions a URL (callgrind). The corresponding C function is `curl_easy_reset`.
    func resetUnlessNew() {
        guard !isNew else { return }
        imgcache_curl_easy_reset(raw)
        imgcache_curl_slist_free_all(headerList)
        headerList = nil
        listedHeaders = []
        keptOptions = nil
        isNew = true
    }

    /// Sets a `long` option. The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, _ value: Int) throws {
        isNew = false
        try check(imgcache_curl_easy_setopt_long(raw, option, value))
    }

    /// Sets a string option (libcurl copies it), as the bytes it stands for
    /// (`withPlatformString`: a `--cookie-jar` path or a `-u` password in
    /// Latin-1 as typed). The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, _ value: String) throws {
        isNew = false
        try check(value.withPlatformString { imgcache_curl_easy_setopt_string(raw, option, $0) })
    }

    /// Sets a pointer option. The corresponding C function is `curl_easy_setopt`.
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws {
        isNew = false
        try check(imgcache_curl_easy_setopt_pointer(raw, option, pointer))
    }

    /// Sets the body to send. `CURLOPT_COPYPOSTFIELDS` copies the bytes, so
    /// nothing here must outlive the call. The corresponding C function is
    /// `curl_easy_setopt` with `CURLOPT_POSTFIELDSIZE_LARGE` and `CURLOPT_COPYPOSTFIELDS`.
    func setUploadBody(_ body: [UInt8]) throws {
        var body = body
        try set(CURLOPT_POSTFIELDSIZE_LARGE, body.count)
        try check(
            body.withUnsafeMutableBytes {
                imgcache_curl_easy_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)
            })
    }

    /// Sets the request headers, unless the list holds these already (a
    /// kept handle's last transfer sent the same). The corresponding C
    /// functions are `curl_slist_append` and `curl_easy_setopt` with `CURLOPT_HTTPHEADER`.
    func setHeaders(_ headers: [HTTPHeader]) throws {
        guard headers != listedHeaders || headerList == nil else { return }
        isNew = false
        // Unset first: libcurl must not hold the list while it is freed.
        try check(imgcache_curl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, nil))
        imgcache_curl_slist_free_all(headerList)
        headerList = nil
        listedHeaders = []
        for header in headers {
            headerList = imgcache_curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        try check(imgcache_curl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList))
        listedHeaders = headers
    }

    /// Routes body bytes and header lines to the callbacks, each given
    /// `context`, and error messages to the buffer behind `errorDetail`
    /// (emptied, as a handle kept from another transfer may have one). The
    /// corresponding C function is `curl_easy_setopt` with
    /// `CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION` and `CURLOPT_ERRORBUFFER`.
    func setCallbacks(body: curl_write_callback, header: curl_write_callback, context: UnsafeMutableRawPointer) throws {
        errorBuffer.initialize(to: 0)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try check(imgcache_curl_easy_setopt_write_callback(raw, body))
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(imgcache_curl_easy_setopt_header_callback(raw, header))
        try set(CURLOPT_HEADERDATA, pointer: context)
    }

    /// The last response's status code (0 before one). The corresponding C
    /// function is `curl_easy_getinfo` with `CURLINFO_RESPONSE_CODE`.
    var responseCode: Int {
        var code = 0
        _ = imgcache_curl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The URL after redirects. The corresponding C function is
    /// `curl_easy_getinfo` with `CURLINFO_EFFECTIVE_URL`.
    var effectiveURL: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        _ = imgcache_curl_easy_getinfo_string(raw, CURLINFO_EFFECTIVE_URL, &pointer)
        return pointer.map { String(cString: $0) }
    }

    /// The body length the server announced for this response, nil if it did
    /// not. The corresponding C function is `curl_easy_getinfo` with
    /// `CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`.
    var contentLength: Int? {
        var length: curl_off_t = -1
        _ = imgcache_curl_easy_getinfo_off_t(raw, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return length < 0 ? nil : Int(length)
    }

    /// Whether the request has a connection and is about to be sent (or
    /// was): false while the transfer waits in libcurl's queue for a
    /// connection to its host. The corresponding C function is
    /// `curl_easy_getinfo` with `CURLINFO_PRETRANSFER_TIME_T`.
    var hasConnection: Bool {
        var microseconds: curl_off_t = 0
        _ = imgcache_curl_easy_getinfo_off_t(raw, CURLINFO_PRETRANSFER_TIME_T, &microseconds)
        return microseconds > 0
    }

    /// Stops receiving (`paused`) or goes on. libcurl allows it from inside
    /// the write callback. The corresponding C function is `curl_easy_pause`
    /// with `CURLPAUSE_RECV` or `CURLPAUSE_CONT`.
    func pauseReceiving(_ paused: Bool) {
        // CURLPAUSE_RECV is 1, CURLPAUSE_CONT 0: the macros are expressions Swift does not import.
        _ = imgcache_curl_easy_pause(raw, paused ? 1 : 0)
    }

    /// libcurl's detailed message for the last failure.
    var errorDetail: String { String(cString: errorBuffer) }

    /// The corresponding C function is `curl_easy_strerror`.
    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else {
            throw ImageCoreError(
                .failure, "libcurl refused an option: \(String(cString: imgcache_curl_easy_strerror(code)))")
        }
    }
}
