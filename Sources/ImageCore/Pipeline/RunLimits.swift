/// Limits belong to the run (man page, FAILED URLS): a cached entry is
/// judged by this run's limits as a download is, and a failure caused by a
/// limit stricter than the defaults says nothing about the URL for runs
/// with the defaults, so it is not remembered.
struct RunLimits: Sendable {
    let limits: DecodingLimits
    /// Re-inspects a cached JPEG's bytes for a run stricter than the default scan count.
    let decoder: any ImageDecoding

    /// This run's value of `limit` for `request`.
    func value(of limit: ImageCoreError.Limit, for request: ImageRequest) -> Int {
        limits.value(of: limit) ?? request.download.maxBytes
    }

    /// The value of `limit` when no run says otherwise.
    static func defaultValue(of limit: ImageCoreError.Limit) -> Int {
        DecodingLimits.default.value(of: limit) ?? DownloadRequest.defaultMaxBytes
    }

    /// Throws the error a download would have met if `response`, served
    /// from a cache, is over this run's limits (its entry stays for runs
    /// that allow it). The JPEG scan count is not in the record: the bytes
    /// are inspected again only by a run stricter than the default there.
    func judge(_ response: ImageResponse, _ request: ImageRequest) throws {
        let info = response.info
        try limits.check(width: info.width, height: info.height, frames: info.frameCount)
        let byteCount = response.entry?.byteCount ?? response.bytes.count
        let maxBytes = request.download.maxBytes
        guard byteCount <= maxBytes else {
            throw ImageCoreError.over(.maxBytes, "body larger than the limit of \(maxBytes) bytes")
        }
        if info.format == .jpeg, limits.maxJPEGScans < DecodingLimits.default.maxJPEGScans,
            !response.bytes.isEmpty
        {
            _ = try decoder.inspect(response.bytes)
        }
    }

    /// Whether a failure of `request` with `error` is remembered on the
    /// failed list, and with which limit value: not when the limit that
    /// refused it is stricter in this run than the default.
    func remembers(_ error: ImageCoreError, _ request: ImageRequest) -> (Bool, limitValue: Int?) {
        guard let limit = error.exceededLimit else { return (true, nil) }
        let value = value(of: limit, for: request)
        return (value >= Self.defaultValue(of: limit), value)
    }

    /// Whether `record` still refuses `request`: not when it was refused by
    /// a limit that this run raises.
    func stillRefuses(_ record: FailedURLRegistry.Record, _ request: ImageRequest) -> Bool {
        guard let limit = record.limit else { return true }
        return value(of: limit.name, for: request) <= limit.value
    }
}
