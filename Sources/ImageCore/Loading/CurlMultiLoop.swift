internal import CCurl
internal import CImageCoreShims
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl's multi interface, driven by one thread of its own. Callers queue
/// transfers from any thread; the loop admits at most
/// `maxConcurrentDownloads` at once, in `TransferQueue`'s order, and resumes each caller's continuation when its transfer ends.
/// Every libcurl call except `curl_multi_wakeup` happens on the loop thread.
final class CurlMultiLoop: Sendable {
    /// Why: a raw pointer is not Sendable, but after `init` the handle is
    /// used only on the loop thread, except for `curl_multi_wakeup`, which
    /// libcurl documents as safe to call from any thread.
    private struct MultiHandle: @unchecked Sendable {
        let multi: UnsafeMutableRawPointer
        let share: UnsafeMutableRawPointer?
    }

    private let inbox: Mutex<TransferInbox>
    /// Queued transfers whose bodies their callers opened (or are opening).
    private let openedBodies = Atomic<Int>(0)
    private let handles: MultiHandle
    private let settings: Downloader.Configuration

    /// Creates the multi handle; the thread starts with the first transfer.
    /// The corresponding C functions are `curl_multi_init` and `curl_share_init`.
    init(settings: Downloader.Configuration) throws {
        try CurlGlobal.initializeOnce()
        guard let multi = imgcache_curl_multi_init() else {
            throw ImageCoreError(.failure, "libcurl: cannot create a multi handle")
        }
        _ = imgcache_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, settings.maxConnectionsPerHost)
        // Keep idle connections for reuse: libcurl's default cache size
        // follows the number of handles added, which dips between transfers.
        _ = imgcache_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(32, 2 * settings.maxConcurrentDownloads))
        // One cookie store for every transfer of the run, so a cookie set by
        // one response is sent with the next request.
        var share: UnsafeMutableRawPointer?
        if settings.cookieJar != nil, let handle = imgcache_curl_share_init() {
            _ = imgcache_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
            share = handle
        }
        handles = MultiHandle(multi: multi, share: share)
        self.settings = settings
        inbox = Mutex(TransferInbox(order: settings.order))
    }

    /// The body of `request`, opened by the caller before it queues the
    /// transfer: creating the file is a download's dearest system call on
    /// ext4, and better made beside this thread than on it. Nil while two
    /// queued transfers per slot hold open bodies, so a long queue (`fetch`
    /// of many URLs) does not hold a file open per URL: those open theirs
    /// when they start.
    func openBodyAhead(for request: DownloadRequest) throws -> TransferBody? {
        guard openedBodies.add(1, ordering: .relaxed).newValue <= 2 * settings.maxConcurrentDownloads else {
            releaseOpenedBody()
            return nil
        }
        do {
            return try TransferBody(for: request, temporaryDirectory: settings.temporaryDirectory)
        } catch {
            releaseOpenedBody()
            throw error
        }
    }

    /// One fewer queued transfer holds an open body.
    private func releaseOpenedBody() {
        openedBodies.subtract(1, ordering: .relaxed)
    }

    /// Queues a transfer, and wakes the loop if it waits for work (the
    /// first transfer starts the loop's thread). After `shutDown` the
    /// transfer fails with `.interrupted`: the multi handle is gone.
    func enqueue(
        id: UInt64, request: DownloadRequest, body: TransferBody?,
        continuation: CheckedContinuation<DownloadResponse, any Error>
    ) {
        let host = HostSchedule.host(of: request.url)
        let queued: Bool
        let wake: Bool
        (queued, wake) = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return (false, false) }
            let wakes = inbox.add(
                QueuedTransfer(id: id, request: request, host: host, body: body, continuation: continuation))
            // Started under the lock, so that `shutDown` never finds the loop
            // started without a thread to join. The thread's first look at
            // the inbox waits for this lock, and then finds the transfer.
            if case .notStarted = inbox.thread { inbox.thread = .running(startLoopThread()) }
            return (true, wakes)
        }
        guard queued else {
            if let body {
                releaseOpenedBody()
                body.discard()
            }
            return continuation.resume(throwing: ImageCoreError(.interrupted, "interrupted"))
        }
        if wake { imgcache_curl_multi_wakeup(handles.multi) }
    }

    /// Cancels one transfer, queued or running.
    func cancel(id: UInt64) {
        inbox.withLock { $0.cancel(id) }
        imgcache_curl_multi_wakeup(handles.multi)
    }

    /// Cancels every transfer, queued or running, and every one queued
    /// later (SIGINT).
    func cancelAll() {
        inbox.withLock { $0.cancelEverything() }
        imgcache_curl_multi_wakeup(handles.multi)
    }

    /// Asks the thread to finish: queued and running transfers are cancelled.
    /// With `waiting`, returns once the thread has cleaned up libcurl's
    /// handles (and written the cookie jar): a process must not exit while
    /// that thread still uses OpenSSL, whose exit handlers would pull it
    /// out from under it.
    func shutDown(waiting: Bool) {
        let thread = inbox.withLock { $0.shutDown() }
        switch thread {
        case .notStarted:
            cleanUpOnce()
        case .running(let thread):
            imgcache_curl_multi_wakeup(handles.multi)
            if waiting { thread.join() } else { thread.detach() }
        case .handedOff:
            break
        }
    }

    /// Whether libcurl's handles are cleaned up (by `shutDown`, or by the
    /// loop's thread as it ends).
    var isCleanedUp: Bool { inbox.withLock { $0.cleanedUp } }

    private func startLoopThread() -> SystemThread {
        do {
            return try SystemThread.start { self.run() }
        } catch {
            preconditionFailure("cannot start the download thread: \(error)")
        }
    }

    /// The loop: admit, perform, collect finished transfers, end stalled
    /// ones, resume those the bandwidth budget paused, wait.
    private func run() {
        var transfers = RunningTransfers()
        var idle = IdleEasyHandles(keeps: settings.cookieJar == nil)
        var schedule = HostSchedule(rate: settings.requestRate)
        let budget = settings.maxBytesPerSecond.map { BandwidthBudget(bytesPerSecond: $0, now: MonotonicClock.now()) }
        var nextStallCheck = 0.0
        while true {
            var now = MonotonicClock.now()
            let work = takeWork(running: transfers.count, schedule: &schedule, now: now)
            let doomed = work.cancelsEverything ? transfers.ids : work.cancelled.filter(transfers.contains)
            for transfer in doomed.compactMap({ transfers.remove($0) }) {
                imgcache_curl_multi_remove_handle(handles.multi, transfer.easy.raw)
                transfer.abandon(ImageCoreError(.interrupted, "interrupted"))
            }
            let slotsTaken = transfers.count + work.admitted.count
            for item in work.admitted {
                start(item, budget: budget, idle: &idle, into: &transfers)
            }
            // A transfer cancelled or unable to start leaves its slot free now.
            var slotFreed = !doomed.isEmpty || transfers.count < slotsTaken
            if work.shuttingDown && transfers.isEmpty { break }

            var running: Int32 = 0
            imgcache_curl_multi_perform(handles.multi, &running)
            var remaining: Int32 = 0
            var finished = 0
            while let message = imgcache_curl_multi_info_read(handles.multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = transfers.remove(handle: easy)
                else { continue }
                let code = message.pointee.data.result
                imgcache_curl_multi_remove_handle(handles.multi, easy)
                transfer.finish(code)
                if let pause = transfer.hostPause {
                    let host = HostSchedule.host(of: transfer.request.url)
                    schedule.pause(host, until: MonotonicClock.now() + pause.seconds)
                    let seconds = Quantities.formatDuration((pause.seconds * 10).rounded() / 10)
                    settings.events.emit("host \(host) paused for \(seconds): \(pause.reason)")
                    // Queued requests to it may wait now: look again at once.
                    slotFreed = true
                }
                idle.put(transfer.easy)
                finished += 1
            }
            now = MonotonicClock.now()
            if now >= nextStallCheck {
                nextStallCheck = now + 0.1
                for stalled in transfers.all.filter({ $0.stalled(now: now) }) {
                    guard let transfer = transfers.remove(stalled.id) else { continue }
                    imgcache_curl_multi_remove_handle(handles.multi, transfer.easy.raw)
                    transfer.timeOut()
                    finished += 1
                }
            }
            var wait = transfers.isEmpty ? settings.longestIdlePoll : settings.longestBusyPoll
            if let budget, transfers.all.contains(where: \.isPausedForBudget) {
                let untilAvailable = budget.secondsUntilAvailable(now: now)
                if untilAvailable <= 0 {
                    for transfer in transfers.all where transfer.isPausedForBudget {
                        transfer.resumeFromBudget(now: now)
                    }
                    continue
                }
                wait = min(wait, untilAvailable)
            }
            // Freed slots go to queued transfers at once: they were queued
            // earlier, so no wake-up is coming for them.
            if finished > 0 || slotFreed { continue }
            if let opening = work.nextOpening { wait = min(wait, max(0, opening - now)) }
            imgcache_curl_multi_poll(handles.multi, Int32((wait * 1000).rounded(.up)))
        }
        idle.removeAll()
        cleanUpOnce()
    }

    private func start(
        _ item: QueuedTransfer, budget: BandwidthBudget?, idle: inout IdleEasyHandles,
        into transfers: inout RunningTransfers
    ) {
        if item.body != nil { releaseOpenedBody() }
        guard let easy = idle.take() else {
            item.body?.discard()
            SanitizerHandOff.publish()
            item.continuation.resume(throwing: ImageCoreError(.failure, "libcurl could not create a handle"))
            return
        }
        let transfer = CurlTransfer(
            id: item.id, easy: easy, request: item.request, body: item.body, settings: settings, budget: budget,
            continuation: item.continuation)
        do {
            try transfer.configure(settings, share: handles.share)
        } catch {
            transfer.abandon(error as? ImageCoreError ?? ImageCoreError(.failure, "\(error)"))
            return
        }
        imgcache_curl_multi_add_handle(handles.multi, transfer.easy.raw)
        transfers.add(transfer)
    }

    /// Takes from the inbox what the loop should do now: transfers to start
    /// (up to the free slots) and transfers to cancel. Queued transfers that
    /// are cancelled are failed right here, outside the lock.
    private func takeWork(running: Int, schedule: inout HostSchedule, now: Double) -> TransferInbox.Work {
        let work = inbox.withLock {
            $0.take(free: settings.maxConcurrentDownloads - running, schedule: &schedule, now: now)
        }
        for item in work.dropped {
            if let body = item.body {
                releaseOpenedBody()
                body.discard()
            }
            SanitizerHandOff.publish()
            item.continuation.resume(throwing: ImageCoreError(.interrupted, "interrupted"))
        }
        return work
    }

    private func cleanUpOnce() {
        let first = inbox.withLock { $0.cleanUp() }
        guard first else { return }
        imgcache_curl_multi_cleanup(handles.multi)
        if let share = handles.share { imgcache_curl_share_cleanup(share) }
    }
}
