/// The outcome of a successful load.
public struct ImageResponse: Sendable {
    /// Where the image came from.
    public enum Source: String, Sendable {
        case memory, disk, downloaded, revalidated
        /// From a shared remote storage (verified, then stored locally).
        case remote
    }

    /// The fields, in one box shared by the response's copies
    /// (`CopyOnWriteBox`): a load hands its response on about four times (the
    /// network step's answer, the rendition, the memory cache, the result),
    /// each a retain of the box, not 778 bytes and a dozen retains. The fields
    /// are documented at their accessors below.
    private var storage: CopyOnWriteBox<Fields>

    private struct Fields: Sendable {
        var url: String
        var key: CacheKey
        var source: Source
        var info: ImageInfo
        var bytes: [UInt8]
        var entry: CacheEntry?
        var path: String?
        var image: DecodedImage?
        var encoded: (bytes: [UInt8], format: OutputFormat.Encoding)?
        var placeholder: ImagePlaceholder?
        var notStored: ImageCoreError?
        var notRead: ImageCoreError?
    }

    /// A response; what a load adds later (pixels, an encoding,
    /// placeholders, why it was not stored or read) starts empty.
    init(
        url: String, key: CacheKey, source: Source, info: ImageInfo, bytes: [UInt8], entry: CacheEntry?,
        path: String?
    ) {
        storage = CopyOnWriteBox(
            Fields(url: url, key: key, source: source, info: info, bytes: bytes, entry: entry, path: path))
    }

    /// The URL that was asked for.
    public var url: String {
        get { storage.fields.url }
        set { storage.fields.url = newValue }
    }
    /// The cache key it maps to.
    public var key: CacheKey {
        get { storage.fields.key }
        set { storage.fields.key = newValue }
    }
    /// Where the image came from.
    public var source: Source {
        get { storage.fields.source }
        set { storage.fields.source = newValue }
    }
    /// Header facts.
    public var info: ImageInfo {
        get { storage.fields.info }
        set { storage.fields.info = newValue }
    }
    /// The original bytes, exactly as downloaded.
    public var bytes: [UInt8] {
        get { storage.fields.bytes }
        set { storage.fields.bytes = newValue }
    }
    /// The disk entry, if the image is (now) stored on disk.
    public var entry: CacheEntry? {
        get { storage.fields.entry }
        set { storage.fields.entry = newValue }
    }
    /// Absolute path of the cached bytes, if stored on disk.
    public var path: String? {
        get { storage.fields.path }
        set { storage.fields.path = newValue }
    }
    /// The decoded pixels, if they were asked for.
    public var image: DecodedImage? {
        get { storage.fields.image }
        set { storage.fields.image = newValue }
    }
    /// The re-encoded image and its format, if `encoding` was asked for.
    public var encoded: (bytes: [UInt8], format: OutputFormat.Encoding)? {
        get { storage.fields.encoded }
        set { storage.fields.encoded = newValue }
    }
    /// ThumbHash, BlurHash and dominant colour, if `wantsPlaceholder` was asked for.
    public var placeholder: ImagePlaceholder? {
        get { storage.fields.placeholder }
        set { storage.fields.placeholder = newValue }
    }
    /// Why the image, delivered all the same, is not in the disk cache when
    /// the request asked for it to be (a read-only cache, a full disk, an
    /// I/O error): the cache is an optimisation, never a reason to fail a
    /// load. Nil when it was stored, or was not to be (`storesToDisk` off,
    /// `Cache-Control: no-store`).
    public var notStored: ImageCoreError? {
        get { storage.fields.notStored }
        set { storage.fields.notStored = newValue }
    }
    /// Why the disk entry, present, could not be read (an I/O error, a
    /// file that cannot be opened), so that the image came from the
    /// network instead, as for a miss. Nil when nothing failed.
    public var notRead: ImageCoreError? {
        get { storage.fields.notRead }
        set { storage.fields.notRead = newValue }
    }

    /// The name of the colour profile the image declares: its ICC profile's
    /// description ("Adobe RGB (1998)"), or e.g. "nclx BT.2020 PQ" for an
    /// AVIF; nil for none (sRGB), a damaged one, or a response without its
    /// bytes. Read from the headers alone: nothing is decoded, Little CMS is
    /// not loaded (a JPEG XL's through libjxl, which loads it).
    public var colourProfileName: String? {
        bytes.isEmpty ? nil : ImageDecoder.declaredProfile(of: bytes, format: info.format, as: .declared).profile?.name
    }
}
