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

    /// The placeholder as kept beside its entry: one `name value` line each.
    public var record: [UInt8] {
        Array("thumbhash \(thumbHash)\nblurhash \(blurHash)\ndominant_color \(dominantColour)\n".utf8)
    }

    /// Reads `record`'s form back; nil unless all three lines are there.
    public init?(record: [UInt8]) {
        var fields: [Substring: Substring] = [:]
        for line in String(decoding: record, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { return nil }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let thumbHash = fields["thumbhash"], let blurHash = fields["blurhash"],
            let colour = fields["dominant_color"], !thumbHash.isEmpty, !blurHash.isEmpty, colour.count == 7
        else { return nil }
        self.init(thumbHash: String(thumbHash), blurHash: String(blurHash), dominantColour: String(colour))
    }
}
