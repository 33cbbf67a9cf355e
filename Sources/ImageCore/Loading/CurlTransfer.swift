#if canImport(Glibc)
import Glibc
#endif
internal import CCurl
internal import CImageCoreShims

/// One transfer: a libcurl easy handle, the temporary file its body streams
/// into, and the continuation waiting for it. Lives on the downloader's loop
/// thread only, from `start` to `finish`.
final class CurlTransfer {
    let id: UInt64
    let request: DownloadRequest
    private let continuation: CheckedContinuation<DownloadResponse, any Error>
    /// The easy handle; owned, freed in `deinit`.
    let handle: UnsafeMutableRawPointer
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes the detailed error message here; it must outlive the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var bodyFile: Int32 = -1
    private var bodyPath = ""
    private var received = 0
    /// Whether the first body bytes have been seen (status checked, resume decided).
    private var bodyStarted = false
    /// The resumable body file, when the request asked for one and got its lock.
    private var partial: PartialDownload?
    /// Bytes kept from an earlier transfer; the server sends the rest.
    private var resumeOffset = 0
    /// Whether a resume record was written for this body.
    private var recordWritten = false
    /// The whole body's length from Content-Range, when resuming.
    private var resumeTotal: Int?
    private var sniffed = false
    private var head: [UInt8] = []
    private var responseHeaders: [String: String] = [:]
    /// Why we stopped the transfer from a callback, if we did.
    private var abortReason: ImageCoreError?
    private let requestTime = WallClock.now()
    private let events: EventLog

    /// Creates the easy handle and configures it. The corresponding C function is `curl_easy_init`.
    init?(id: UInt64, request: DownloadRequest, settings: Downloader.Configuration,
          continuation: CheckedContinuation<DownloadResponse, any Error>) {
        guard let handle = imgcache_curl_easy_init() else { return nil }
        self.id = id
        self.request = request
        self.continuation = continuation
        self.handle = handle
        self.events = settings.events
        errorBuffer.initialize(to: 0)
    }

    deinit {
        imgcache_curl_easy_cleanup(handle)
        imgcache_curl_slist_free_all(requestHeaders)
        if bodyFile >= 0 { close(bodyFile) }
        errorBuffer.deallocate()
    }

    /// Opens the body file and sets every option; throws if one is refused.
    func configure(_ settings: Downloader.Configuration, share: UnsafeMutableRawPointer?) throws {
        var extraHeaders: [HTTPHeader] = []
        if let path = request.resumableBodyPath, let partial = PartialDownload.open(path, url: request.url) {
            self.partial = partial
            bodyFile = partial.fd
            bodyPath = path
            if let (offset, validator) = partial.resumable {
                resumeOffset = offset
                _ = lseek(partial.fd, 0, SEEK_END)
                extraHeaders = [HTTPHeader(name: "Range", value: "bytes=\(offset)-"),
                                HTTPHeader(name: "If-Range", value: validator)]
                events.emit("resuming \(request.url) at \(offset) bytes")
            }
        } else {
            let (fd, path) = try POSIXFile.createTemporary(in: settings.temporaryDirectory, suffix: ".part")
            bodyFile = fd
            bodyPath = path
        }
        let timeoutMs = Int(request.timeout * 1000)
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 1)
        try set(CURLOPT_MAXREDIRS, request.maxRedirects)
        try set(CURLOPT_TIMEOUT_MS, timeoutMs)
        try set(CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, Int(request.connectTimeout * 1000)))
        // A stalled body fails after 10 s below 1 byte/s even if the total
        // timeout is generous.
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, 10)
        try set(CURLOPT_MAXFILESIZE_LARGE, request.maxBytes)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_SSL_VERIFYPEER, request.allowsInsecureTLS ? 0 : 1)
        try set(CURLOPT_SSL_VERIFYHOST, request.allowsInsecureTLS ? 0 : 2)
        try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Wait for a connection that can multiplex (HTTP/2) rather than open
        // another one; HTTP/1.1 connections are reused as they free up.
        try set(CURLOPT_PIPEWAIT, 1)
        if let credentials = request.credentials {
            try set(CURLOPT_USERPWD, credentials)
            // CURLAUTH_BASIC is 1; the macro is a cast expression Swift does not import.
            try set(CURLOPT_HTTPAUTH, 1)
            try set(CURLOPT_UNRESTRICTED_AUTH, 0)
        }
        if let proxy = request.proxy { try set(CURLOPT_PROXY, proxy) }
        if let cookieJar = settings.cookieJar {
            try set(CURLOPT_COOKIEFILE, cookieJar)
            try set(CURLOPT_COOKIEJAR, cookieJar)
        }
        if let share { try check(imgcache_curl_easy_setopt_pointer(handle, CURLOPT_SHARE, share)) }
        if request.method != "GET" { try set(CURLOPT_CUSTOMREQUEST, request.method) }
        if var body = request.uploadBody {
            // COPYPOSTFIELDS copies the bytes, so nothing here must outlive the call;
            // "Expect:" saves the 100-continue round trip.
            try set(CURLOPT_POSTFIELDSIZE_LARGE, body.count)
            try check(body.withUnsafeMutableBytes { imgcache_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
            extraHeaders += [HTTPHeader(name: "Expect", value: ""), HTTPHeader(name: "Content-Type", value: "application/octet-stream")]
        }

        for header in request.effectiveHeaders + extraHeaders {
            requestHeaders = imgcache_curl_slist_append(requestHeaders, "\(header.name): \(header.value)")
        }
        try check(imgcache_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders))

        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(imgcache_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(imgcache_curl_easy_setopt_write_callback(handle, curlWriteBody))
        try check(imgcache_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        try check(imgcache_curl_easy_setopt_header_callback(handle, curlReceiveHeader))
        try check(imgcache_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        events.emit("request started: \(request.method) \(request.url)")
    }

    /// Body bytes from libcurl. Returning fewer bytes than given aborts the
    /// transfer with CURLE_WRITE_ERROR; `abortReason` says why.
    fileprivate func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        if !bodyStarted {
            bodyStarted = true
            let status = responseCode()
            if status >= 400 {
                // The error page is of no use: stop instead of downloading it.
                abortReason = httpError(status)
                return 0
            }
            if let partial { startPartialBody(partial, status: status) }
        }
        if !sniffed && request.expectsImage {
            head += chunk.prefix(ImageFormat.sniffLength - head.count)
            if head.count >= ImageFormat.sniffLength {
                sniffed = true
                if let problem = Self.sniffProblem(head) {
                    abortReason = problem
                    return 0
                }
            }
        }
        guard resumeOffset + received + chunk.count <= request.maxBytes else {
            abortReason = ImageCoreError(.image, "body larger than the limit of \(request.maxBytes) bytes")
            return 0
        }
        do {
            try POSIXFile.writeAll(bodyFile, chunk, path: bodyPath)
        } catch let error as ImageCoreError {
            abortReason = error
            return 0
        } catch {
            return 0
        }
        received += chunk.count
        if let onProgress = request.onProgress {
            var expected: curl_off_t = -1
            _ = imgcache_curl_easy_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected)
            onProgress(resumeOffset + received, expected > 0 ? resumeOffset + Int(expected) : nil)
        }
        return chunk.count
    }

    /// Decides, at the first body bytes, whether the server resumed the body
    /// (206 at our offset) or sent it whole (200: the resource changed, or
    /// the server ignores ranges), and records the validator for a later resume.
    private func startPartialBody(_ partial: PartialDownload, status: Int) {
        if resumeOffset > 0 {
            let range = Self.contentRange(responseHeaders["content-range"])
            if status == 206, range?.start == resumeOffset {
                resumeTotal = range?.total
                sniffed = true  // the first bytes were checked by the earlier transfer
                events.emit("resumed \(request.url) at \(resumeOffset) bytes")
            } else {
                PartialDownload.forget(partial.path, fd: partial.fd)
                resumeOffset = 0
            }
        }
        // A small body is quicker to fetch again than to keep a record for.
        var length: curl_off_t = -1
        _ = imgcache_curl_easy_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        if length < 0 || resumeOffset + Int(length) >= PartialDownload.smallestResumable {
            recordWritten = true
            PartialDownload.remember(partial.path, url: request.url, validator: PartialDownload.strongValidator(responseHeaders))
        }
    }

    /// "bytes 500-999/1000" → start 500, total 1000 (nil total for "*").
    private static func contentRange(_ value: String?) -> (start: Int, total: Int?)? {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let start = parts[0].split(separator: "-").first.flatMap({ Int($0) }) else { return nil }
        return (start, Int(parts[1]))
    }

    /// One response header line. A status line starts a new response (after a
    /// redirect or a 100 Continue), so earlier headers are dropped.
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            responseHeaders.removeAll()
            return
        }
        guard let header = HTTPHeader(parsing: text) else { return }
        let name = header.name.lowercased()
        if let existing = responseHeaders[name] {
            responseHeaders[name] = existing + ", " + header.value
        } else {
            responseHeaders[name] = header.value
        }
    }

    /// Resumes the waiting caller with the outcome of `code`.
    func finish(_ code: CURLcode) {
        let status = responseCode()
        var outcome: Result<DownloadResponse, ImageCoreError>
        var resumedBadly = false
        if code == CURLE_OK && status >= 400 {
            outcome = .failure(httpError(status))
        } else if code == CURLE_OK && status == 304 {
            // Not modified: the caller keeps the body it has.
            outcome = .success(response(status))
        } else if code == CURLE_OK {
            if !sniffed, request.expectsImage, let problem = Self.sniffProblem(head) {
                outcome = .failure(problem)
            } else if let total = resumeTotal, total != resumeOffset + received {
                resumedBadly = true
                outcome = .failure(ImageCoreError(.network, "resumed body is \(resumeOffset + received) bytes, the server said \(total)"))
            } else {
                outcome = .success(response(status))
            }
        } else if let abortReason {
            outcome = .failure(abortReason)
        } else {
            let detail = String(cString: errorBuffer)
            outcome = .failure(CurlError.error(for: code, detail: detail))
        }
        if case .success(let response) = outcome, let partial {
            // Move the finished body out of the shared name while still
            // holding its lock, so no other process can start writing into it.
            do {
                let unique = "\(partial.path).\(UniqueName.make()).part"
                try POSIXFile.rename(partial.path, to: unique)
                if recordWritten || resumeOffset > 0 { _ = try? POSIXFile.remove(PartialDownload.recordPath(partial.path)) }
                var moved = response
                moved.bodyPath = unique
                outcome = .success(moved)
            } catch let error as ImageCoreError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(ImageCoreError(.cacheIO, "\(error)"))
            }
        }
        if case .failure(let error) = outcome {
            // A broken-off body is kept for a resume; anything else goes.
            let keep = partial != nil && error.kind == .network && (recordWritten || resumeOffset > 0) && !resumedBadly
            if !keep {
                if let partial { PartialDownload.discard(partial.path) } else { unlink(bodyPath) }
            }
        }
        close(bodyFile)
        bodyFile = -1
        switch outcome {
        case .success(let response):
            events.emit("response received: \(request.url): HTTP \(status), \(response.bodySize) bytes")
            continuation.resume(returning: response)
        case .failure(let error):
            events.emit("request failed: \(request.url): \(error.message)")
            continuation.resume(throwing: error)
        }
    }

    /// Ends the transfer without running it (cancelled, or configuration failed).
    func abandon(_ error: ImageCoreError) {
        if bodyFile >= 0 {
            if let partial { PartialDownload.discard(partial.path) } else { unlink(bodyPath) }
            close(bodyFile)
            bodyFile = -1
        }
        continuation.resume(throwing: error)
    }

    private func response(_ status: Int) -> DownloadResponse {
        DownloadResponse(status: status, effectiveURL: effectiveURL(), headers: responseHeaders, bodyPath: bodyPath,
                         bodySize: resumeOffset + received, requestTime: requestTime,
                         responseTime: WallClock.now())
    }

    /// An error status, with the server's Retry-After (seconds or a date).
    private func httpError(_ status: Int) -> ImageCoreError {
        var error = ImageCoreError.httpStatus(status)
        if let value = responseHeaders["retry-after"] {
            let trimmed = value.trimmingSpaces()
            error.retryAfter = Double(trimmed) ?? HTTPDate.parse(String(trimmed)).map { max(0, $0 - WallClock.now()) }
        }
        return error
    }

    private static func sniffProblem(_ head: [UInt8]) -> ImageCoreError? {
        switch ImageFormat.sniff(head) {
        case .supported: nil
        case .unsupported(let name): ImageCoreError(.image, "unsupported image format (\(name))")
        case .notAnImage(let what): ImageCoreError(.image, what)
        }
    }

    /// The corresponding C function is `curl_easy_getinfo` with `CURLINFO_RESPONSE_CODE`.
    private func responseCode() -> Int {
        var code = 0
        _ = imgcache_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The corresponding C function is `curl_easy_getinfo` with `CURLINFO_EFFECTIVE_URL`.
    private func effectiveURL() -> String {
        var pointer: UnsafeMutablePointer<CChar>?
        _ = imgcache_curl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &pointer)
        return pointer.map { String(cString: $0) } ?? request.url
    }

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(imgcache_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws {
        try check(imgcache_curl_easy_setopt_string(handle, option, value))
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else {
            throw ImageCoreError(.failure, "libcurl refused an option: \(String(cString: imgcache_curl_easy_strerror(code)))")
        }
    }
}

/// libcurl's write callback: `userdata` is the unretained `CurlTransfer`.
private let curlWriteBody: curl_write_callback = { data, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// libcurl's header callback: `userdata` is the unretained `CurlTransfer`.
private let curlReceiveHeader: curl_write_callback = { data, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}
