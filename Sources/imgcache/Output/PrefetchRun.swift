import ImageCore

/// What `prefetch` shows while the library's `ImagePrefetcher` works: the
/// progress bar, a line per failure, `--json` records, and the summary.
struct PrefetchRun {
    let manager: ImageManager
    /// The request every URL gets, with its URL: what the download options ask for.
    let template: ImageRequest
    let json: Bool
    /// `-q`: no warnings.
    let quiet: Bool
    let progress: ProgressBar?
    /// Most loads in flight at once.
    let window: Int

    /// Prefetches every URL of `lines`; `expectedTotal` (counted before the
    /// run when the input is a regular file) lets the bar show a total early.
    func process(_ lines: LineReader, expectedTotal: Int?) async -> ImagePrefetcher.Tally {
        // Warming needs to know an entry is there, not its bytes.
        var template = template
        template.needsBytes = false
        let meter = progress.map { _ in DownloadMeter(expectedTotal: expectedTotal) }
        return await ProgressBar.redrawing(progress) {
            await ImagePrefetcher(manager: manager, window: window).prefetch(
                lines,
                makeRequest: { [template] url in
                    var request = template
                    request.download.setURL(url)
                    if let meter, let progress {
                        request.download.onProgress = { received, expected in
                            meter.received(url, received, of: expected)
                            progress.update(meter.progressState)
                        }
                    }
                    return request
                }, shouldStop: { SignalTrap.wasInterrupted },
                progressed: { tally in
                    meter?.counted(tally)
                    if let meter { progress?.update(meter.progressState) }
                },
                finished: { result, tally in
                    report(result)
                    meter?.counted(tally, finished: result.url)
                    if let meter { progress?.update(meter.progressState) }
                })
        }
    }

    /// Prints what `result` calls for. Its URL is the line as given, shown
    /// as `fetch` shows it: a password as `***` (`URLUserInfo.shown`).
    private func report(_ result: ImageLoadResult) {
        let url = URLUserInfo.shown(result.url)
        if case .failure(let error) = result.outcome, error.kind != .interrupted {
            StandardStreams.print("imgcache: \(url): \(error.message)", toStderr: true, above: progress)
        }
        // Stored again after its copy could not be read: warmed, but the disk may be failing.
        if case .success(let response) = result.outcome, let warning = FetchOutput.cacheWarning(response), !quiet {
            StandardStreams.print("imgcache: \(url): \(warning)", toStderr: true, above: progress)
        }
        if json {
            StandardStreams.print(
                JSONRecord.result(
                    url: url, key: manager.key(for: result.url), outcome: result.outcome, durationMs: result.durationMs
                ).text, above: progress)
        }
    }
}

extension ImagePrefetcher.Tally {
    /// The summary line for stderr. Remote hits are named apart from local
    /// ones (as `--json` says `remote`); a run stopped early says that the
    /// rest of the list was not read, so the count is not taken for the list's.
    var summary: String {
        "\(counted(total, "URL", "URLs"))\(distinctNote)\(stoppedEarly ? " before the interruption" : ""): "
            + "\(downloaded) downloaded, \(cached) already cached, "
            + (remote > 0 ? "\(remote) from remote storage, " : "")
            + "\(revalidated) revalidated, \(failed) failed, \(skipped) skipped"
            + (interrupted > 0 ? ", \(interrupted) interrupted" : "")
            + (stoppedEarly ? "; the rest of the list was not read" : "")
    }

    /// " (N distinct)" when the list repeated URLs; an estimate says
    /// "about", and only when it is clearly below the total (its error is
    /// about 1.6 %).
    private var distinctNote: String {
        if distinctIsEstimate {
            return Double(distinct) < Double(total) * 0.96 ? " (about \(distinct) distinct)" : ""
        }
        return distinct < total ? " (\(distinct) distinct)" : ""
    }

}
