/// Every number a run uses when nothing says otherwise, in one table: the
/// library's values (`DownloadRequest`, `ImageRequest`,
/// `ImageManager.Configuration`, `DecodingLimits.default`), the command
/// line's option defaults and the man page's DEFAULTS section come from
/// here (`DefaultsTests` checks the man page and the parser against it).
public enum Defaults {
    /// Retries of a transient failure (`--retries`).
    public static let retries = 2
    /// Downloads at once (`prefetch -j`).
    public static let concurrentDownloads = 6
    /// Connections to one host (`--max-per-host`) when the concurrency is the default.
    public static let connectionsPerHost = 6
    /// Seconds without a byte before a download is given up (`--timeout`, the stall timeout).
    public static let timeout: Double = 15
    /// Seconds to connect, TLS included (`--connect-timeout`).
    public static let connectTimeout: Double = 10
    /// Largest body, in bytes (`--max-bytes`): 64 MiB.
    public static let maxBytes = 64 * 1024 * 1024
    /// Redirects followed (`--max-redirects`).
    public static let maxRedirects = 10
    /// Pixels of one frame (`--limit-pixels`): 100 million.
    public static let maxPixels = 100_000_000
    /// Frames of an animation (`--limit-frames`).
    public static let maxFrames = 1000
    /// Pixels over all frames (`--limit-total-pixels`): 2 billion.
    public static let maxTotalPixels = 2_000_000_000
    /// Scans of a progressive JPEG (`--limit-scans`).
    public static let maxJPEGScans = 500
}
