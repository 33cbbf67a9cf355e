import ArgumentParser

/// Options that would do nothing in the combination given are refused, the
/// way `--frame` without pixels always was: a user who typed `--quality 80`
/// expects it to change something.
extension FetchPlan {
    /// `fetch`'s own (`download`'s are `DownloadOptions.refuseOptionsWithoutEffect`).
    func refuseOptionsWithoutEffect() throws {
        if quality != nil {
            switch rendition.encoding {
            case .format(let format) where format == .png || format == .gif:
                throw ValidationError("--quality applies to --encode jpeg, webp, avif or jxl, not \(format.rawValue)")
            case nil:
                throw ValidationError(
                    "--quality needs --encode jpeg|webp|avif|jxl, or --thumbnail/--max-pixels without --decode")
            default: break
            }
        }
        if placeholder && !json { throw ValidationError("--placeholder needs --json") }
        if noOrient && !needsPixels { throw ValidationError("--no-orient needs --decode, --encode or --thumbnail") }
        if askedColourSpace != nil && !needsPixels {
            throw ValidationError("--colorspace needs --decode, --encode or --thumbnail")
        }
    }
}

extension IMGCacheCommand.Prefetch {
    func refuseOptionsWithoutEffect() throws {
        if download.placeholder && !global.json { throw ValidationError("--placeholder needs --json") }
        try download.refuseOptionsWithoutEffect()
    }
}

extension DownloadOptions {
    /// `--offline` never uses the network, so the options that only shape a
    /// transfer do nothing with it (`-H` and `-u` still pick a `Vary` variant).
    func refuseOptionsWithoutEffect() throws {
        try Self.refuseOptionsWithoutEffect(
            offline: offline, refresh: refresh, staleIfError: staleIfError, insecure: insecure, proxy: proxy,
            retryFailed: retryFailed, limitRate: limitRate, rate: rate)
    }

    /// `refuseOptionsWithoutEffect` for these values, whoever read them
    /// (the parser, or `FetchPlan` with the ones it reads).
    static func refuseOptionsWithoutEffect(
        offline: Bool, refresh: Bool = false, staleIfError: Bool, insecure: Bool, proxy: String? = nil,
        retryFailed: Bool = false, limitRate: String? = nil, rate: String? = nil
    ) throws {
        guard offline else { return }
        let useless = [
            (refresh, "--refresh"), (staleIfError, "--stale-if-error"), (insecure, "--insecure"),
            (proxy != nil, "--proxy"), (retryFailed, "--retry-failed"), (limitRate != nil, "--limit-rate"),
            (rate != nil, "--rate"),
        ]
        .filter(\.0).map(\.1)
        if let first = useless.first { throw ValidationError("\(first) has no effect with --offline") }
    }
}

extension GlobalOptions {
    /// `stat`, `clean` and `purge` draw no progress bar.
    func refuseProgress() throws {
        if progress == true { throw ValidationError("--progress has no effect: there is no progress bar to show") }
    }
}

extension IMGCacheCommand.Purge {
    func refuseOptionsWithoutEffect() throws {
        try global.refuseProgress()
        if urls.isEmpty && (key.keyIgnoreQuery || !key.keyStripParam.isEmpty) {
            throw ValidationError("--key-ignore-query and --key-strip-param need URLs")
        }
    }
}

extension IMGCacheCommand.Clean {
    func refuseOptionsWithoutEffect() throws {
        try global.refuseProgress()
    }
}

extension IMGCacheCommand.Stat {
    func refuseOptionsWithoutEffect() throws {
        try global.refuseProgress()
        if placeholder && (urls.isEmpty || !global.json) {
            throw ValidationError("--placeholder needs --json and URLs")
        }
        if urls.isEmpty && (key.keyIgnoreQuery || !key.keyStripParam.isEmpty) {
            throw ValidationError("--key-ignore-query and --key-strip-param need URLs")
        }
    }
}
