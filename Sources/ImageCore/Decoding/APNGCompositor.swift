/// Composites APNG frames onto the canvas as the APNG specification says and
/// browsers do: the canvas starts fully transparent black; a frame with
/// blend op SOURCE replaces its region, OVER alpha-composites onto it (on
/// unpremultiplied RGBA, with the same integer rounding as ffmpeg's apng
/// decoder); after the frame is shown, dispose op BACKGROUND clears its
/// region to transparent black and PREVIOUS restores what was there before.
/// A first frame's PREVIOUS counts as BACKGROUND.
struct APNGCompositor {
    let width: Int
    let height: Int
    private var canvas: [UInt8]
    private var drawn = 0

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        canvas = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Draws one frame's RGBA pixels (its region's size), hands the
    /// composited canvas to `show` (valid only during the call), then
    /// applies the frame's dispose op.
    mutating func draw(
        _ pixels: [UInt8], frame: APNGStructure.Frame,
        show: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        let disposeOp = drawn == 0 && frame.disposeOp == 2 ? 1 : frame.disposeOp
        drawn += 1
        let saved = disposeOp == 2 ? region(of: frame) : nil
        let rowBytes = frame.width * 4
        canvas.withUnsafeMutableBufferPointer { canvas in
            pixels.withUnsafeBufferPointer { source in
                for row in 0..<frame.height {
                    let target = ((frame.y + row) * width + frame.x) * 4
                    let from = row * rowBytes
                    if frame.blendOp == 0 {
                        for byte in 0..<rowBytes { canvas[target + byte] = source[from + byte] }
                    } else {
                        for pixel in stride(from: 0, to: rowBytes, by: 4) {
                            Self.blendOver(source, at: from + pixel, onto: canvas, at: target + pixel)
                        }
                    }
                }
            }
        }
        try canvas.withUnsafeBufferPointer { try show($0) }
        if disposeOp == 1 {
            clear(frame)
        } else if let saved {
            restore(saved, frame)
        }
    }

    /// `foreground` OVER `background`, unpremultiplied: ffmpeg's
    /// `blend_frame` (libavcodec/pngdec.c), integer for integer.
    @inline(__always)
    private static func blendOver(
        _ foreground: UnsafeBufferPointer<UInt8>, at from: Int,
        onto background: UnsafeMutableBufferPointer<UInt8>, at to: Int
    ) {
        let foregroundAlpha = Int(foreground[from + 3])
        if foregroundAlpha == 0 { return }
        if foregroundAlpha == 255 {
            for channel in 0..<4 { background[to + channel] = foreground[from + channel] }
            return
        }
        let backgroundAlpha = Int(background[to + 3])
        let outputAlpha = foregroundAlpha + divide255((255 - foregroundAlpha) * backgroundAlpha)
        for channel in 0..<3 {
            let front = Int(foreground[from + channel]), back = Int(background[to + channel])
            let value: Int
            if outputAlpha == 0 {
                value = 0
            } else if backgroundAlpha == 255 {
                value = divide255(foregroundAlpha * front + (255 - foregroundAlpha) * back)
            } else {
                value =
                    (255 * foregroundAlpha * front + (255 - foregroundAlpha) * backgroundAlpha * back)
                    / (255 * outputAlpha)
            }
            background[to + channel] = UInt8(value)
        }
        background[to + 3] = UInt8(outputAlpha)
    }

    /// x / 255, rounded, for 0 ≤ x ≤ 255 × 255 (ffmpeg's FAST_DIV255).
    @inline(__always)
    private static func divide255(_ value: Int) -> Int { ((value + 128) * 257) >> 16 }

    private func region(of frame: APNGStructure.Frame) -> [UInt8] {
        var saved: [UInt8] = []
        saved.reserveCapacity(frame.width * frame.height * 4)
        for row in 0..<frame.height {
            let start = ((frame.y + row) * width + frame.x) * 4
            saved += canvas[start..<start + frame.width * 4]
        }
        return saved
    }

    private mutating func restore(_ saved: [UInt8], _ frame: APNGStructure.Frame) {
        let rowBytes = frame.width * 4
        for row in 0..<frame.height {
            let start = ((frame.y + row) * width + frame.x) * 4
            canvas.replaceSubrange(start..<start + rowBytes, with: saved[row * rowBytes..<(row + 1) * rowBytes])
        }
    }

    private mutating func clear(_ frame: APNGStructure.Frame) {
        for row in 0..<frame.height {
            let start = ((frame.y + row) * width + frame.x) * 4
            canvas.replaceSubrange(start..<start + frame.width * 4, with: repeatElement(0, count: frame.width * 4))
        }
    }
}
