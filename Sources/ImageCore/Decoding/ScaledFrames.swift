/// Scales each frame a decoder hands over down to `width` × `height`
/// (`AreaResampler`) and passes it on to `next`, with its palette. Only the
/// rectangle that differs from the frame before is resampled: a copy of the
/// previous frame at full size is kept to find it, and everything outside
/// it is the previous scaled frame's already. An animation that moves a
/// small sprite over a still background costs the sprite, not the canvas.
struct ScaledFrames<Next: FrameSink>: FrameSink {
    var next: Next
    let width: Int
    let height: Int
    private var resampler: AreaResampler?
    /// The last frame at full size; zeros (transparent) before the first.
    private var previous: [UInt8] = []
    /// The last frame scaled: transparent zeros scale to transparent zeros.
    private var scaled: [UInt8] = []
    /// Whether the last frame was opaque (the zeros before the first are not).
    private var previousOpaque = false

    init(_ next: Next, width: Int, height: Int) {
        self.next = next
        self.width = width
        self.height = height
    }

    mutating func begin(width sourceWidth: Int, height sourceHeight: Int) throws {
        resampler = AreaResampler(from: sourceWidth, sourceHeight, to: width, height)
        previous = [UInt8](repeating: 0, count: sourceWidth * sourceHeight * 4)
        scaled = [UInt8](repeating: 0, count: width * height * 4)
        try next.begin(width: width, height: height)
    }

    mutating func write(frame: UnsafeRawBufferPointer, durationMilliseconds: Int) throws {
        scale(frame)
        try scaled.withUnsafeBytes { try next.write(frame: $0, durationMilliseconds: durationMilliseconds) }
    }

    mutating func write(frame: UnsafeRawBufferPointer, palette: FramePalette, durationMilliseconds: Int) throws {
        scale(frame)
        try scaled.withUnsafeBytes {
            try next.write(frame: $0, palette: palette, durationMilliseconds: durationMilliseconds)
        }
    }

    mutating func finish(loopCount: Int?) throws {
        try next.finish(loopCount: loopCount)
    }

    /// Resamples what changed since the previous frame into `scaled`, and remembers it.
    private mutating func scale(_ frame: UnsafeRawBufferPointer) {
        guard let resampler else { return }
        var changed = previous.withUnsafeBytes {
            PixelRect.changed(from: $0, to: frame, width: resampler.sourceWidth, height: resampler.sourceHeight)
        }
        // An opaque frame is averaged without premultiplying, as `AreaResampler.resample`
        // does a whole opaque image; where that changes, the whole frame is, so that
        // every pixel is the one a resampling of the whole frame gives.
        let opaque = AreaResampler.isOpaque(frame)
        if opaque != previousOpaque {
            changed = PixelRect(width: resampler.sourceWidth, height: resampler.sourceHeight)
            previousOpaque = opaque
        }
        guard !changed.isEmpty else { return }
        _ = resampler.resample(frame, changed: changed, into: &scaled, opaque: opaque)
        let rowBytes = resampler.sourceWidth * 4
        previous.withUnsafeMutableBytes { target in
            for y in changed.y {
                let start = y * rowBytes + changed.x.lowerBound * 4
                target.baseAddress!.advanced(by: start).copyMemory(
                    from: frame.baseAddress!.advanced(by: start), byteCount: changed.width * 4)
            }
        }
    }
}
