/// The outcome of a successful load.
public struct ImageResponse: Sendable {
    /// Where the image came from.
    public enum Source: String, Sendable {
        case memory, disk, downloaded, revalidated
        /// From a shared remote storage (verified, then stored locally).
        case remote
    }

    /// The URL that was asked for.
    public var url: String
    /// The cache key it maps to.
    public var key: CacheKey
    /// Where the image came from.
    public var source: Source
    /// Header facts.
    public var info: ImageInfo
    /// The original bytes, exactly as downloaded.
    public var bytes: [UInt8]
    /// The disk entry, if the image is (now) stored on disk.
    public var entry: CacheEntry?
    /// Absolute path of the cached bytes, if stored on disk.
    public var path: String?
    /// The decoded pixels, if they were asked for.
    public var image: DecodedImage?
    /// The re-encoded image and its format, if `encoding` was asked for.
    public var encoded: (bytes: [UInt8], format: OutputFormat.Encoding)?
    /// ThumbHash, BlurHash and dominant colour, if `wantsPlaceholder` was asked for.
    public var placeholder: ImagePlaceholder?
    /// Why the image, delivered all the same, is not in the disk cache when
    /// the request asked for it to be (a read-only cache, a full disk, an
    /// I/O error): the cache is an optimisation, never a reason to fail a
    /// load. Nil when it was stored, or was not to be (`storesToDisk` off,
    /// `Cache-Control: no-store`).
    public var notStored: ImageCoreError?
    /// Why the disk entry, present, could not be read (an I/O error, a
    /// file that cannot be opened), so that the image came from the
    /// network instead, as for a miss. Nil when nothing failed.
    public var notRead: ImageCoreError?

    /// The name of the colour profile the image declares: its ICC profile's
    /// description ("Adobe RGB (1998)"), or e.g. "nclx BT.2020 PQ" for an
    /// AVIF; nil for none (sRGB), a damaged one, or a response without its
    /// bytes. Read from the headers alone: nothing is decoded, Little CMS is
    /// not loaded (a JPEG XL's through libjxl, which loads it).
    public var colourProfileName: String? {
        bytes.isEmpty ? nil : ImageDecoder.declaredProfile(of: bytes, format: info.format, as: .declared).profile?.name
    }
}
