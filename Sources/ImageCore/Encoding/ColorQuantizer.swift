/// Reduces one frame's RGBA pixels to a GIF palette of at most 256 entries.
/// Pixels with alpha below 128 become one transparent index. A frame with
/// few enough colours keeps them exactly (so a GIF re-encoded at its own
/// size loses nothing); otherwise median cut over a 15-bit colour histogram
/// (Heckbert's algorithm, as in giflib's old `GifQuantizeBuffer`): the box
/// with the most pixels times its widest channel range is split at its
/// pixel median until there are enough boxes, and each box's colour is the
/// mean of its pixels.
enum ColorQuantizer {
    struct Palette {
        var colors: [(red: UInt8, green: UInt8, blue: UInt8)]
        /// One palette index per pixel.
        var indices: [UInt8]
        /// The index of transparent pixels (after the colours), if any.
        var transparentIndex: Int?
    }

    static func quantize(_ pixels: [UInt8], maxColors: Int = 256) -> Palette {
        let pixelCount = pixels.count / 4
        let transparent = stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] < 128 }
        let budget = maxColors - (transparent ? 1 : 0)
        if let exact = exactColors(pixels, budget: budget) {
            return exact
        }
        // 5 bits per channel: per bin, the pixel count and channel sums.
        var count = [Int](repeating: 0, count: 1 << 15), sums = [Int](repeating: 0, count: 3 << 15)
        for pixel in 0..<pixelCount where pixels[pixel * 4 + 3] >= 128 {
            let bin = bin(pixels, pixel)
            count[bin] += 1
            for channel in 0..<3 { sums[bin * 3 + channel] += Int(pixels[pixel * 4 + channel]) }
        }
        var boxes = [Box(bins: (0..<(1 << 15)).filter { count[$0] > 0 }, count: count)]
        while boxes.count < budget {
            // The box most worth splitting: population times widest range.
            guard let best = boxes.indices.max(by: { boxes[$0].score < boxes[$1].score }), boxes[best].score > 0 else {
                break
            }
            let shift = (2 - boxes[best].channel) * 5
            let sorted = boxes[best].bins.sorted { ($0 >> shift) & 31 < ($1 >> shift) & 31 }
            let half = boxes[best].population / 2
            var running = 0, cut = 1
            for (position, bin) in sorted.enumerated().dropLast() {
                running += count[bin]
                cut = position + 1
                if running >= half { break }
            }
            boxes[best] = Box(bins: Array(sorted[..<cut]), count: count)
            boxes.append(Box(bins: Array(sorted[cut...]), count: count))
        }
        var binToIndex = [UInt8](repeating: 0, count: 1 << 15)
        var colors: [(red: UInt8, green: UInt8, blue: UInt8)] = []
        for (index, box) in boxes.enumerated() {
            let total = max(1, box.population)
            let mean = (0..<3).map { channel in UInt8(box.bins.reduce(0) { $0 + sums[$1 * 3 + channel] } / total) }
            colors.append((mean[0], mean[1], mean[2]))
            for bin in box.bins { binToIndex[bin] = UInt8(index) }
        }
        let transparentIndex = transparent ? colors.count : nil
        let indices = (0..<pixelCount).map { pixel in
            pixels[pixel * 4 + 3] < 128 ? UInt8(transparentIndex!) : binToIndex[bin(pixels, pixel)]
        }
        return Palette(colors: colors, indices: indices, transparentIndex: transparentIndex)
    }

    /// The frame's own colours, if there are at most `budget`.
    private static func exactColors(_ pixels: [UInt8], budget: Int) -> Palette? {
        var lookup: [UInt32: UInt8] = [:]
        var colors: [(red: UInt8, green: UInt8, blue: UInt8)] = []
        var indices = [UInt8](repeating: 0, count: pixels.count / 4)
        var transparentPixels: [Int] = []
        for pixel in 0..<indices.count {
            guard pixels[pixel * 4 + 3] >= 128 else {
                transparentPixels.append(pixel)
                continue
            }
            let key =
                UInt32(pixels[pixel * 4]) << 16 | UInt32(pixels[pixel * 4 + 1]) << 8 | UInt32(pixels[pixel * 4 + 2])
            if let index = lookup[key] {
                indices[pixel] = index
                continue
            }
            guard colors.count < budget else { return nil }
            lookup[key] = UInt8(colors.count)
            indices[pixel] = UInt8(colors.count)
            colors.append((pixels[pixel * 4], pixels[pixel * 4 + 1], pixels[pixel * 4 + 2]))
        }
        let transparentIndex = transparentPixels.isEmpty ? nil : colors.count
        for pixel in transparentPixels { indices[pixel] = UInt8(colors.count) }
        return Palette(colors: colors, indices: indices, transparentIndex: transparentIndex)
    }

    @inline(__always)
    private static func bin(_ pixels: [UInt8], _ pixel: Int) -> Int {
        Int(pixels[pixel * 4] >> 3) << 10 | Int(pixels[pixel * 4 + 1] >> 3) << 5 | Int(pixels[pixel * 4 + 2] >> 3)
    }

    /// Histogram bins that will share one palette entry.
    private struct Box {
        var bins: [Int]
        var population: Int
        /// The channel (0 red, 1 green, 2 blue) whose values spread widest.
        var channel: Int
        /// Population times that spread; 0 for a box that cannot be split.
        var score: Int

        init(bins: [Int], count: [Int]) {
            self.bins = bins
            population = bins.reduce(0) { $0 + count[$1] }
            var low = [31, 31, 31], high = [0, 0, 0]
            for bin in bins {
                for channel in 0..<3 {
                    let value = (bin >> ((2 - channel) * 5)) & 31
                    low[channel] = min(low[channel], value)
                    high[channel] = max(high[channel], value)
                }
            }
            let ranges = (0..<3).map { high[$0] - low[$0] }
            channel = ranges.firstIndex(of: ranges.max()!)!
            score = bins.count > 1 ? population * ranges[channel] : 0
        }
    }
}
