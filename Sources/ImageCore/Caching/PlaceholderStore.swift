/// Placeholders kept with an entry (`--placeholder`): read back from the
/// entry's record when it holds one, else computed from a decode of the
/// cached bytes scaled to fit 100 × 100, in sRGB and upright, and kept in
/// the record, so that a warm run reads nothing but the record it reads
/// anyway, and decodes nothing. New bytes get a new record, without it.
struct PlaceholderStore: Sendable {
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
        // An entry an earlier version gave a placeholder variant file has
        // none in its record: it is computed once more, and the file goes.
        if let kept = entry.placeholder { return kept }
        var source = bytes
        if source.isEmpty {
            guard let path = entry.path, let read = try? POSIXFile.read(path), read.count == entry.byteCount else {
                throw ImageCoreError(.cacheIO, "cannot read the cached image of \(entry.url)")
            }
            source = read
        }
        let placeholder = try Self.compute(source, limits: limits)
        if keeping {
            try? disk.variants.storePlaceholder(placeholder, of: entry, key: key)
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
