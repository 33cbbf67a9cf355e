/// What a caller wants for one URL: where to look, what may be used, and
/// whether pixels are needed (SDWebImageOptions as a value).
public struct ImageRequest: Sendable {
    /// How the network may be used.
    public enum NetworkPolicy: Sendable {
        /// Download on a cache miss.
        case allowed
        /// Never use the network; a miss is `.notCached`.
        case offline
    }

    /// The network request, including the URL.
    public var download: DownloadRequest
    /// Request the URL even if it is on the failed-URL list.
    public var retriesFailed = false
    /// Keep a downloaded image out of the disk cache (memory only).
    public var storesToDisk = true
    /// Whether the network may be used.
    public var network = NetworkPolicy.allowed
    /// Decode pixels (for `--decode`); otherwise only the header is read.
    public var decodesPixels = false
    /// Whether the caller uses the image's bytes. A prefetch does not: a
    /// fresh disk entry then answers from its record and its file's size,
    /// without reading or verifying the bytes (the fetch that uses them
    /// verifies them), and the response's `bytes` are empty.
    public var needsBytes = true
    /// The frame to decode, or nil for every frame.
    public var frame: Int?
    /// The size to decode at (`--thumbnail`, `--max-pixels`), or nil for full size.
    public var scale: ScaleTarget?
    /// Re-encode the (scaled) pixels: into `ImageResponse.encoded`.
    public var encoding: Encoding?
    /// JPEG and WebP quality (1–100) for `encoding`.
    public var quality: Int?
    /// Whether decoded pixels are turned upright per the EXIF orientation,
    /// or nil for the manager's decoder to decide.
    public var appliesOrientation: Bool?
    /// Whether decoded pixels with a profile are converted to sRGB, or nil
    /// for the manager's decoder to decide.
    public var colourSpace: ColourSpace?
    /// The name under which the encoded result is kept beside the cached
    /// original and reused (a thumbnail variant), or nil to not keep it.
    /// Must name every setting that shapes the result.
    public var variantName: String?

    /// What to re-encode into.
    public enum Encoding: Sendable, Equatable {
        /// This format.
        case format(OutputFormat.Encoding)
        /// The original's own kind: JPEG, PNG (APNG), GIF, WebP, AVIF.
        case matchingOriginal

        /// The format for an original in `format`.
        public func resolved(for format: ImageFormat) -> OutputFormat.Encoding {
            switch self {
            case .format(let chosen): chosen
            case .matchingOriginal: .matching(format)
            }
        }
    }
    /// Add the image's placeholders (`--placeholder`) to the response, read
    /// from its entry or computed once and kept there.
    public var wantsPlaceholder = false
    /// Revalidate a cached entry even if it is fresh (`--refresh`).
    public var refresh = false
    /// Serve a stale entry, at any age, when the origin fails transiently.
    public var staleIfError = false
    /// Retries of a transient failure (network error, 408, 429, 5xx).
    public var retries = Defaults.retries
    /// Set by `ImageManager.answerFromCache` when the disk had nothing for
    /// this request: `load` then does not look again.
    var diskMissed = false

    /// The URL.
    public var url: String { download.url }

    /// A request for `url` with the defaults; the URL's own
    /// `user:password@`, if any, becomes the credentials (`setURL`).
    public init(url: String) {
        download = DownloadRequest(url: "")
        download.setURL(url)
    }
}
