/// The colour most of an image is: pixels counted in a 4096-bin histogram
/// (4 bits per channel, as sharp's `stats().dominant` counts them), the
/// fullest bin wins, and its pixels' mean is the answer. Pixels under half
/// opacity do not count unless nothing else is there.
enum DominantColour {
    /// `#rrggbb` for `rgba` (unpremultiplied).
    static func of(rgba: [UInt8]) -> String {
        let opaque = stride(from: 0, to: rgba.count, by: 4).contains { rgba[$0 + 3] >= 128 }
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        for pixel in stride(from: 0, to: rgba.count, by: 4) where !opaque || rgba[pixel + 3] >= 128 {
            let (r, g, b) = (Int(rgba[pixel]), Int(rgba[pixel + 1]), Int(rgba[pixel + 2]))
            let bin = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
            counts[bin] += 1
            sums[bin] = (sums[bin].0 + r, sums[bin].1 + g, sums[bin].2 + b)
        }
        // The first fullest bin: ties go to the darker one, the same every run.
        guard
            let fullest = counts.indices.max(by: { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 > $1) }),
            counts[fullest] > 0
        else { return "#000000" }
        let (count, sum) = (counts[fullest], sums[fullest])
        return "#" + [sum.0, sum.1, sum.2].map { hex(($0 + count / 2) / count) }.joined()
    }

    private static func hex(_ value: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[value >> 4], digits[value & 15]])
    }
}
