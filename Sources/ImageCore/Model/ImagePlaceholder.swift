/// What a page shows while an image loads (`--placeholder`): a ThumbHash,
/// a BlurHash and the dominant colour, each computed from the same small
/// sRGB decode of the image (at most 100 × 100 pixels, upright).
public struct ImagePlaceholder: Sendable, Equatable {
    /// The ThumbHash (evanw/thumbhash), base64 with padding, as its
    /// reference implementation's examples print it.
    public var thumbHash: String
    /// The BlurHash (woltapp/blurhash) with 4 × 3 components.
    public var blurHash: String
    /// The most common colour, `#rrggbb`.
    public var dominantColour: String

    /// Creates a placeholder from its three parts.
    public init(thumbHash: String, blurHash: String, dominantColour: String) {
        self.thumbHash = thumbHash
        self.blurHash = blurHash
        self.dominantColour = dominantColour
    }

    /// The placeholder as its entry's record keeps it: the three values
    /// separated by spaces, which none of them holds (base64, BlurHash's
    /// base 83, `#rrggbb`).
    public var recordValue: String {
        "\(thumbHash) \(blurHash) \(dominantColour)"
    }

    /// Reads `recordValue`'s form back; nil unless it holds three values.
    public init?(recordValue: String) {
        let parts = recordValue.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].count == 7, parts[2].first == "#"
        else { return nil }
        self.init(thumbHash: String(parts[0]), blurHash: String(parts[1]), dominantColour: String(parts[2]))
    }
}
