internal import CJXL
import Synchronization

/// JPEG XL through libjxl (dlopened: `jxl_shims.h`): stills, animations
/// composited by libjxl (coalesced frames, each the whole canvas), alpha,
/// 8 to 32-bit samples written as 8-bit as djxl writes them, the codestream's
/// orientation applied by libjxl (sizes are upright), and a recompressed
/// JPEG (`jbrd`) decoded to pixels as djxl decodes it. Limits are checked
/// from the basic info, before any pixel buffer exists, and at each frame
/// header; pixels arrive through libjxl's image-out callback, so a still
/// image streams to a `RowSink` with a band of rows held, not the frame.
///
/// Colour: pixels come out in the colour space libjxl decodes to, which
/// `JXLColour` reports. A lossy (XYB) image whose original space is an ICC
/// profile is decoded to sRGB: libjxl 0.7 has no colour management of its
/// own, and would otherwise give linear light in 8 bits.
struct JXLDecoder {
    let limits: DecodingLimits

    /// Header facts and every frame decoded to nowhere: what a download must
    /// pass before it is stored. libjxl skips a frame it is not asked to
    /// render without checking that its data is all there, so only a full
    /// decode catches a file cut short (or corrupt) in its last frame.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try run(bytes, channels: 3) { _ in JXLPixelReceiver(channels: 3) }
    }

    /// The upright size from the basic info, checked against the limits;
    /// nothing else is read (a thumbnail's target size).
    func header(_ bytes: [UInt8]) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { buffer in
            let handle = try JXLDecoderHandle(buffer, events: JXL_DEC_BASIC_INFO)
            guard try handle.next() == JXL_DEC_BASIC_INFO else {
                throw ImageCoreError(.image, "corrupt JPEG XL: no image header")
            }
            return try Self.header(handle.basicInfo(), limits: limits)
        }
    }

    /// The header facts of `basic`, upright, checked against `limits`.
    private static func header(_ basic: JxlBasicInfo, limits: DecodingLimits) throws -> ImageInfo {
        // Orientations 5 to 8 transpose: libjxl turns the pixels, so the sizes turn too.
        let turned = basic.orientation.rawValue >= 5
        let width = Int(turned ? basic.ysize : basic.xsize)
        let height = Int(turned ? basic.xsize : basic.ysize)
        try limits.check(width: width, height: height)
        return ImageInfo(
            format: .jxl, width: width, height: height,
            loopCount: basic.have_animation != 0 ? Int(basic.animation.num_loops) : nil)
    }

    /// Every composited frame, kept.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        var collector = FrameCollector()
        try decode(bytes, into: &collector)
        return collector.image(.jxl)
    }

    /// Hands each composited frame to `sink` when libjxl has rendered it:
    /// one RGBA canvas in memory, whatever the frame count.
    func decode(_ bytes: [UInt8], into sink: inout some FrameSink) throws {
        var canvas: JXLCanvas?
        let info = try run(
            bytes, channels: 4,
            header: { info in try sink.begin(width: info.width, height: info.height) },
            frame: { info in
                let current = canvas ?? JXLCanvas(width: info.width, height: info.height)
                canvas = current
                return current
            },
            frameDone: { duration in
                try canvas?.withPixels { try sink.write(frame: $0, durationMilliseconds: duration) }
            })
        try sink.finish(loopCount: info.loopCount)
    }

    /// Streams a still image's rows to `sink` top to bottom as libjxl renders
    /// them, holding only the rows not yet whole (libjxl renders groups of
    /// 256×256 pixels: about a group's height of rows). Returns false, having
    /// written nothing, for an animation, which takes the frame path.
    func stream(_ bytes: [UInt8], channels: Int, to sink: inout some RowSink) throws -> Bool {
        try stream(bytes, channels: channels, sink: &sink)
    }

    private func stream<Sink: RowSink>(_ bytes: [UInt8], channels: Int, sink: inout Sink) throws -> Bool {
        var band: JXLRowBand<Sink>?
        defer { if let band { sink = band.sink } }
        do {
            try run(
                bytes, channels: channels,
                header: { info in
                    if info.loopCount != nil { throw Animated() }
                    try sink.begin(width: info.width, height: info.height, channels: channels)
                },
                frame: { info in
                    let current = JXLRowBand(sink, width: info.width, height: info.height, channels: channels)
                    band = current
                    return current
                },
                frameDone: { _ in try band?.finish() })
            return true
        } catch is Animated {
            return false
        }
    }

    /// A `size` thumbnail (not larger than the image) of a still image, its
    /// rows (RGB, or RGBA for an image with alpha) area-averaged as libjxl
    /// renders them (`ScaledRows`): no full-size frame in memory. Nil for an
    /// animation, which is scaled frame by frame instead.
    func thumbnail(_ bytes: [UInt8], size: (width: Int, height: Int)) throws -> DecodedImage? {
        let basic = try bytes.withUnsafeBufferPointer { buffer in
            let handle = try JXLDecoderHandle(buffer, events: JXL_DEC_BASIC_INFO)
            guard try handle.next() == JXL_DEC_BASIC_INFO else {
                throw ImageCoreError(.image, "corrupt JPEG XL: no image header")
            }
            return try handle.basicInfo()
        }
        guard basic.have_animation == 0 else { return nil }
        let info = try Self.header(basic, limits: limits)
        var scaled = ScaledRows(from: info.width, info.height, to: size)
        guard try stream(bytes, channels: basic.alpha_bits != 0 ? 4 : 3, sink: &scaled) else { return nil }
        try scaled.finish()
        return DecodedImage(
            format: .jxl, width: size.width, height: size.height, frames: [.init(pixels: scaled.pixels)])
    }

    /// Thrown by `stream`'s header check: not a still image.
    private struct Animated: Error {}

    /// Runs libjxl over `bytes` to its end: checks the limits at the basic
    /// info and at each frame, calls `header` once with the upright size
    /// (and a loop count for an animation), `frame` for the receiver of each
    /// frame's pixels, `frameDone` with each frame's duration in
    /// milliseconds once it is whole. Returns the header facts with the
    /// frame count. The corresponding C function is `JxlDecoderProcessInput`.
    @discardableResult
    private func run(
        _ bytes: [UInt8], channels: Int, header: (ImageInfo) throws -> Void = { _ in },
        frame: (ImageInfo) throws -> JXLPixelReceiver, frameDone: (Int) throws -> Void = { _ in }
    ) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { buffer in
            let handle = try JXLDecoderHandle(
                buffer, events: JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE)
            var basic = JxlBasicInfo()
            var info = ImageInfo(format: .jxl, width: 0, height: 0)
            var receiver: JXLPixelReceiver?
            var (frames, duration) = (0, 0)
            var durations: [Int] = []
            while true {
                let status = try handle.next()
                // A sink's own error (a failed write) ends the decode as itself.
                if let failure = receiver?.failure { throw failure }
                switch status {
                case JXL_DEC_BASIC_INFO:
                    basic = try handle.basicInfo()
                    info = try Self.header(basic, limits: limits)
                    try header(info)
                case JXL_DEC_COLOR_ENCODING:
                    JXLColour.chooseOutput(handle, basic: basic)
                case JXL_DEC_FRAME:
                    frames += 1
                    try limits.check(width: info.width, height: info.height, frames: frames)
                    duration = Self.milliseconds(ticks: try handle.frameHeader().duration, basic: basic)
                    durations.append(duration)
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    let current = try frame(info)
                    receiver = current
                    try handle.deliver(channels: channels, to: current)
                case JXL_DEC_FULL_IMAGE:
                    try frameDone(duration)
                case JXL_DEC_SUCCESS:
                    guard frames > 0 else { throw ImageCoreError(.image, "corrupt JPEG XL: no frame") }
                    info.frameCount = frames
                    if frames == 1 { info.loopCount = nil } else { info.frameDurations = durations }
                    return info
                default:
                    throw ImageCoreError(.image, "corrupt JPEG XL: unexpected decoder status \(status.rawValue)")
                }
            }
        }
    }

    /// A frame's duration in animation ticks as milliseconds (0 for a still).
    static func milliseconds(ticks: UInt32, basic: JxlBasicInfo) -> Int {
        let rate = basic.animation
        guard basic.have_animation != 0, rate.tps_numerator > 0 else { return 0 }
        return Int((Double(ticks) * Double(rate.tps_denominator) * 1000 / Double(rate.tps_numerator)).rounded())
    }
}

/// A frame's pixels kept whole as RGBA: the canvas of `decode(_:into:)`.
/// libjxl's threads write their pieces straight into it (pieces never
/// overlap, and the memory never moves); a lock taken after each piece and
/// before the frame is read orders those writes before the reading.
final class JXLCanvas: JXLPixelReceiver, @unchecked Sendable {
    let width: Int
    let height: Int
    private let pixels: UnsafeMutableBufferPointer<UInt8>
    private let fence = Mutex(())

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height * 4)
        pixels.initialize(repeating: 0)
        super.init(channels: 4)
    }

    deinit { pixels.deallocate() }

    /// Calls `body` with the frame rendered so far (whole after `JXL_DEC_FULL_IMAGE`).
    func withPixels<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        fence.withLock { _ in }
        return try body(UnsafeRawBufferPointer(pixels))
    }

    override func receive(x: Int, y: Int, count: Int, pixels source: UnsafePointer<Float>) {
        guard y >= 0, y < height, x >= 0, x + count <= width else { return fail(outside: (x, y, count)) }
        Self.quantize(source, count: count * 4, into: pixels.baseAddress! + (y * width + x) * 4)
        fence.withLock { _ in }
    }
}
