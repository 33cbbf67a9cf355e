import ImageCore

/// Counts of a prefetch run (SDWebImagePrefetcher's, made complete).
struct PrefetchTally {
    var total = 0
    /// Different URLs among `total` (a duplicate is served by the first's download).
    var distinct = 0
    var downloaded = 0
    var cached = 0
    var revalidated = 0
    var failed = 0
    var skipped = 0
    /// Loads cut short by SIGINT/SIGTERM: not failures of their URLs.
    var interrupted = 0
    var bytes = 0
    var failureKinds: [ImageCoreError.Kind] = []
    /// Whether all input has been read, so `total` is final.
    var inputEnded = false
    /// The total counted before the run, when the input is a regular file.
    var expectedTotal: Int?

    var done: Int { downloaded + cached + revalidated + failed + skipped + interrupted }

    /// The summary line for stderr.
    var summary: String {
        "\(counted(total, "URL", "URLs"))\(distinct < total ? " (\(distinct) distinct)" : ""): \(downloaded) downloaded, \(cached) already cached, \(revalidated) revalidated, "
            + "\(failed) failed, \(skipped) skipped" + (interrupted > 0 ? ", \(interrupted) interrupted" : "")
    }
}

/// Feeds URLs to the manager with a bounded number in flight, so memory stays
/// flat however long the input is, and tallies the outcomes.
struct PrefetchRun {
    let manager: ImageManager
    let download: DownloadOptions
    let json: Bool
    let progress: ProgressBar?
    /// Most loads in flight at once (a few per download slot keeps the
    /// downloader's queue full while cache hits are answered).
    let window: Int

    func process(_ lines: LineReader, expectedTotal: Int?) async -> PrefetchTally {
        var tally = PrefetchTally()
        tally.expectedTotal = expectedTotal
        await withTaskGroup(of: (String, Result<ImageResponse, ImageCoreError>, Double).self) { group in
            var inFlight = 0
            // Hashes only, to count distinct URLs: 8 bytes per URL, not the URLs themselves.
            var seen = Set<Int>()
            for await line in lines {
                if SignalTrap.wasInterrupted { break }
                let url = String(line.trimmingCharacters())
                if url.isEmpty || url.hasPrefix("#") { continue }
                tally.total += 1
                if seen.insert(url.hashValue).inserted { tally.distinct += 1 }
                if inFlight >= window, let result = await group.next() {
                    inFlight -= 1
                    record(result, into: &tally)
                }
                let request = download.request(for: url)
                group.addTask {
                    let (outcome, duration) = await timedLoad(manager, request)
                    return (url, outcome, duration)
                }
                inFlight += 1
                progress?.update(tally.progressState)
            }
            tally.inputEnded = true
            for await result in group {
                record(result, into: &tally)
            }
        }
        return tally
    }

    private func record(_ result: (String, Result<ImageResponse, ImageCoreError>, Double), into tally: inout PrefetchTally) {
        let (url, outcome, duration) = result
        switch outcome {
        case .success(let response):
            switch response.source {
            case .downloaded:
                tally.downloaded += 1
                tally.bytes += response.bytes.count
            case .revalidated: tally.revalidated += 1
            case .memory, .disk, .remote: tally.cached += 1
            }
        case .failure(let error):
            tally.failureKinds.append(error.kind)
            switch error.kind {
            case .interrupted: tally.interrupted += 1
            case .failedBefore: tally.skipped += 1
            default: tally.failed += 1
            }
            if error.kind != .interrupted {
                StandardStreams.print("imgcache: \(url): \(error.message)", toStderr: true, above: progress)
            }
        }
        if json {
            StandardStreams.print(JSONRecord.result(url: url, key: manager.key(for: url), outcome: outcome,
                                                    durationMs: duration).text, above: progress)
        }
        progress?.update(tally.progressState)
    }
}

extension PrefetchTally {
    var progressState: ProgressBar.State {
        ProgressBar.State(done: done, total: inputEnded ? total : expectedTotal,
                          detail: "\(downloaded) downloaded, \(cached) cached, \(failed + skipped) failed",
                          bytes: bytes)
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (including "\r").
    func trimmingCharacters() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return Substring() }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return Substring(self[first...last])
    }
}
