/// Placeholders kept with an entry (`--placeholder`): read back from the
/// entry's `placeholder` variant when it has one, else computed from a
/// decode of the cached bytes scaled to fit 100 × 100, in sRGB and upright,
/// and kept as that variant, so that a warm run reads one small file and
/// decodes nothing. The variant goes with its entry (clean, purge, new bytes).
struct PlaceholderStore: Sendable {
    /// The variant's name in the entry's record.
    static let variantName = "placeholder"

    let disk: DiskCache
    let limits: DecodingLimits

    /// The placeholder of `entry` (stored under `key`), whose bytes are
    /// `bytes` when the caller holds them (else they are read from the
    /// cache). With `keeping`, one computed here is stored with the entry
    /// (best effort: a read-only cache still answers). Throws `.image` when
    /// the image does not decode, `.cacheIO` when its file cannot be read.
    func placeholder(
        of entry: CacheEntry, key: CacheKey, bytes: [UInt8] = [], keeping: Bool
    ) throws
        -> ImagePlaceholder
    {
        if let kept = disk.variant(of: entry, key: key, transform: Self.variantName),
            let placeholder = ImagePlaceholder(record: kept)
        {
            return placeholder
        }
        var source = bytes
        if source.isEmpty {
            guard let path = entry.path, let read = try? POSIXFile.read(path), read.count == entry.byteCount else {
                throw ImageCoreError(.cacheIO, "cannot read the cached image of \(entry.url)")
            }
            source = read
        }
        let placeholder = try Self.compute(source, limits: limits)
        if keeping {
            try? disk.storeVariant(
                placeholder.record, transform: Self.variantName, fileExtension: "placeholder", of: entry, key: key)
        }
        return placeholder
    }

    /// The placeholder of an image's bytes, from its first frame.
    static func compute(_ bytes: [UInt8], limits: DecodingLimits) throws -> ImagePlaceholder {
        let side = ImagePlaceholder.sampleSide
        let decoder = ImageDecoder(limits: limits, appliesOrientation: true, colourSpace: .srgb)
        return ImagePlaceholder(of: try decoder.decode(bytes, frame: 0, scale: .fit(width: side, height: side)))
    }
}
