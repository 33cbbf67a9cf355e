internal import CCurl
internal import CImageCoreShims  // also includes curl.h: CURLE_OK may be found through it

/// One transfer: the easy handle, the body sink its bytes stream into, the
/// resume protocol when the body is a shared partial, and the continuation
/// waiting for it. Lives on the downloader's loop thread only, from `start`
/// to `finish`; here is only what ties those parts together.
final class CurlTransfer {
    let id: UInt64
    let request: DownloadRequest
    private let continuation: CheckedContinuation<DownloadResponse, any Error>
    /// The easy handle; the loop's while the transfer runs, then freed or
    /// kept for the next transfer (`IdleEasyHandles`).
    let easy: CurlEasyHandle
    private var sink: BodySink?
    /// The resume protocol, when the request asked for a resumable body and got its lock.
    private var resumable: ResumableBody?
    /// Whether the sink gave up its file for memory (said once with `-v`).
    private var bodyMovedToMemory = false
    private var head = ResponseHead()
    private var sniffer = BodySniffer()
    /// An error response's body, when it is an S3 error document (read up
    /// to `ResponseHead.errorDocumentLimit` bytes, for its code).
    private var errorDocument: [UInt8]?
    /// Whether the first body bytes have been seen (status checked, resume decided).
    private var bodyStarted = false
    /// Why we stopped the transfer from a callback, if we did.
    private var abortReason: ImageCoreError?
    private let requestTime = WallClock.now()
    private let events: EventLog
    /// The run's `--limit-rate` when this transfer is paced by it.
    private let budget: BandwidthBudget?
    /// When a byte (header or body) last arrived, or the transfer got its
    /// connection or was resumed (monotonic); nil while it waits for a
    /// connection, which is not a stall.
    private var lastActivity: Double?
    /// Whether the transfer is paused until the budget allows more bytes.
    private(set) var isPausedForBudget = false
    /// The pause a 429 or 503 with Retry-After asks of the whole host, once finished.
    private(set) var hostPause: (seconds: Double, reason: String)?

    /// A transfer of `request` on `easy`, a new handle or one `reset` after another transfer.
    init(
        id: UInt64, easy: CurlEasyHandle, request: DownloadRequest, body: TransferBody?,
        settings: Downloader.Configuration, budget: BandwidthBudget?,
        continuation: CheckedContinuation<DownloadResponse, any Error>
    ) {
        self.id = id
        self.request = request
        self.continuation = continuation
        self.easy = easy
        self.events = settings.events
        self.budget = request.isPaced ? budget : nil
        if let body { take(body) }
    }

    private func take(_ body: TransferBody) {
        sink = body.sink
        resumable = body.resumable
        if let offset = body.resumable?.partial.resumable?.offset {
            events.emit("resuming \(shownURL) at \(offset) bytes")
        }
    }

    /// Opens the body file unless the caller did, and sets every option;
    /// throws if one is refused.
    func configure(_ settings: Downloader.Configuration, share: UnsafeMutableRawPointer?) throws {
        if sink == nil { take(try TransferBody(for: request, temporaryDirectory: settings.temporaryDirectory)) }
        try easy.apply(request, settings: settings, share: share, extraHeaders: resumable?.requestHeaders ?? [])
        try easy.setCallbacks(
            body: curlWriteBody, header: curlReceiveHeader, context: Unmanaged.passUnretained(self).toOpaque())
        events.emit("request started: \(request.method) \(shownURL)")
    }

    /// The URL as `-v` shows it: a password in its user info masked. An S3
    /// endpoint's (`|endpoint=http://user:password@host`) reaches the
    /// request's URL; credentials never appear in output.
    private var shownURL: String { RemoteStorageURL.masked(request.url) }

    /// Bytes kept from an earlier transfer of a resumed body.
    private var kept: Int { resumable?.offset ?? 0 }

    /// Body bytes from libcurl. Returning fewer bytes than given aborts the
    /// transfer with CURLE_WRITE_ERROR; `abortReason` says why.
    fileprivate func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        guard let sink else { return 0 }
        if var document = errorDocument {
            document += chunk.prefix(ResponseHead.errorDocumentLimit - document.count)
            errorDocument = document
            guard document.count < ResponseHead.errorDocumentLimit else {
                abortReason = head.httpError(easy.responseCode, document: document)
                return 0
            }
            return chunk.count
        }
        if !bodyStarted {
            bodyStarted = true
            let status = easy.responseCode
            if ResponseHead.isErrorStatus(status) {
                // An S3 error document names the cause: read it, up to a
                // limit. Any other error page is of no use: stop instead of
                // downloading it.
                guard head.hasErrorDocument else {
                    abortReason = head.httpError(status)
                    return 0
                }
                errorDocument = []
                return receiveBody(chunk)
            }
            if resumable?.start(status: status, head: head, url: request.url) == true {
                sniffer.skip()
                events.emit("resumed \(shownURL) at \(kept) bytes")
            }
            sink.expect(easy.contentLength)
        }
        if request.expectsImage, let problem = sniffer.take(chunk) {
            abortReason = problem
            return 0
        }
        do {
            try sink.write(chunk, kept: kept, limit: request.maxBytes)
            if resumable?.recordIsDue(now: WallClock.now()) == true {
                // The record names the file: the file first.
                try sink.flush(kept: kept)
                noteBodyMovedToMemory()
                resumable?.writeRecord()
            }
        } catch {
            abortReason = error as? ImageCoreError
            return 0
        }
        noteBodyMovedToMemory()
        let now = MonotonicClock.now()
        lastActivity = now
        if let budget, budget.take(chunk.count, now: now) {
            // Pausing from the write callback is allowed; this chunk is kept.
            easy.pauseReceiving(true)
            isPausedForBudget = true
        }
        if let onProgress = request.onProgress {
            onProgress(kept + sink.received, easy.contentLength.flatMap { $0 > 0 ? kept + $0 : nil })
        }
        return chunk.count
    }

    /// Says once, with `-v`, that the sink went on in memory and removed
    /// its file: nothing is left to resume.
    private func noteBodyMovedToMemory() {
        guard !bodyMovedToMemory, let failure = sink?.fileFailure else { return }
        bodyMovedToMemory = true
        resumable = nil
        events.emit("body kept in memory: \(shownURL): \(failure.message)")
    }

    /// One response header line.
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) {
        lastActivity = MonotonicClock.now()
        head.receive(line)
    }

    /// Goes on after a pause for the bandwidth budget; the pause was no stall.
    func resumeFromBudget(now: Double) {
        isPausedForBudget = false
        lastActivity = now
        easy.pauseReceiving(false)
    }

    /// Whether no byte has arrived for the stall timeout (`--timeout`)
    /// since the transfer got its connection; a transfer waiting for a
    /// connection to its host, or paused by the budget, is not stalled.
    func stalled(now: Double) -> Bool {
        guard !isPausedForBudget else { return false }
        guard let lastActivity else {
            if easy.hasConnection { lastActivity = now }
            return false
        }
        return now - lastActivity > request.effectiveTimeout
    }

    /// Ends a stalled transfer (already removed from the multi handle) as a
    /// network error, so a body with a strong validator is kept for a resume.
    func timeOut() {
        let seconds = Quantities.formatDuration(request.effectiveTimeout)
        var reason = ImageCoreError(.network, "timed out: no data for \(seconds)")
        reason.transportFault = .timedOut
        abortReason = reason
        finish(CURLE_OPERATION_TIMEDOUT)
    }

    /// Resumes the waiting caller with the outcome of `code`.
    func finish(_ code: CURLcode) {
        var code = code
        // Whatever comes of it, the file gets the bytes it was spared: the
        // body is renamed into the cache or kept for a resume.
        do {
            try sink?.flush(kept: kept)
            noteBodyMovedToMemory()
        } catch {
            abortReason = abortReason ?? error as? ImageCoreError
            if code == CURLE_OK { code = CURLE_WRITE_ERROR }
        }
        let status = easy.responseCode
        let size = kept + (sink?.received ?? 0)
        var outcome: Result<DownloadResponse, ImageCoreError>
        var wrongLength = false
        if code == CURLE_OK && ResponseHead.isErrorStatus(status) {
            outcome = .failure(head.httpError(status, document: errorDocument ?? []))
        } else if code == CURLE_OK && status == 304 {
            // Not modified: the caller keeps the body it has.
            outcome = .success(response(status))
        } else if code == CURLE_OK {
            if request.expectsImage, let problem = sniffer.problemAtEnd() {
                outcome = .failure(problem)
            } else if let problem = resumable?.sizeProblem(size) {
                wrongLength = true
                outcome = .failure(problem)
            } else {
                outcome = .success(response(status))
            }
        } else if let abortReason {
            outcome = .failure(abortReason)
        } else {
            outcome = .failure(CurlError.error(for: code, detail: easy.errorDetail, status: status))
        }
        if case .success(var response) = outcome, let resumable {
            // The body stays at its shared name, locked, until the caller
            // stores it: the lock (the sink's descriptor) goes with it.
            response.bodyLock = resumable.finished()
            outcome = .success(response)
        }
        if case .failure(let error) = outcome, resumable?.keeps(after: error, wrongLength: wrongLength) != true {
            // A broken-off body is kept for a resume; anything else goes.
            removeBody()
        }
        sink?.close()
        SanitizerHandOff.publish()
        switch outcome {
        case .success(let response):
            events.emit("response received: \(shownURL): HTTP \(status), \(response.bodySize) bytes")
            continuation.resume(returning: response)
        case .failure(let error):
            if let status = error.httpStatus, status == 429 || status == 503, let seconds = error.retryAfter {
                hostPause = (min(seconds, RetryDelay.longestWait), "HTTP \(status) with Retry-After")
            }
            events.emit("request failed: \(shownURL): \(error.message)")
            continuation.resume(throwing: error)
        }
    }

    /// Ends the transfer without running it (cancelled, or configuration failed).
    func abandon(_ error: ImageCoreError) {
        if let sink, sink.isOpen {
            removeBody()
            sink.close()
        }
        SanitizerHandOff.publish()
        continuation.resume(throwing: error)
    }

    private func removeBody() {
        if let sink { TransferBody.remove(sink, resumable: resumable) }
    }

    private func response(_ status: Int) -> DownloadResponse {
        DownloadResponse(
            status: status, effectiveURL: easy.effectiveURL ?? request.url, headers: head.headers,
            bodyPath: sink?.path ?? "", bodySize: kept + (sink?.received ?? 0),
            body: kept == 0 ? sink?.bytes : nil, requestTime: requestTime, responseTime: WallClock.now())
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
