internal import CGIF

/// GIF through giflib's streaming encoder, frame by frame: each frame is
/// the whole canvas with a palette of its own (`ColorQuantizer`), pixels
/// with alpha below 128 transparent, disposal 2 so a transparent pixel never
/// shows the frame before. Durations are rounded to GIF's hundredths of a
/// second. All giflib encoding calls live here.
final class GIFEncoder {
    /// Collects what giflib writes; reached through `GifFileType.UserData`.
    private final class Output { var bytes: [UInt8] = [] }

    private let output = Output()
    private var gif: UnsafeMutablePointer<GifFileType>?
    private let width: Int
    private let height: Int

    /// Starts a GIF89a: screen descriptor, and the NETSCAPE2.0 loop count
    /// unless the animation plays once (`loopCount` 1), as the decoder reads
    /// it back. The corresponding C functions are `EGifOpen`,
    /// `EGifPutScreenDesc` and `EGifPutExtension*`.
    init(width: Int, height: Int, loopCount: Int) throws {
        var error: Int32 = 0
        guard
            let gif = EGifOpen(
                Unmanaged.passUnretained(output).toOpaque(),
                { gif, data, count in
                    guard let gif, let user = gif.pointee.UserData, let data else { return 0 }
                    Unmanaged<Output>.fromOpaque(user).takeUnretainedValue().bytes += UnsafeBufferPointer(
                        start: data, count: Int(count))
                    return count
                }, &error)
        else { throw Self.failure(error) }
        self.gif = gif
        self.width = width
        self.height = height
        EGifSetGifVersion(gif, true)
        guard EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil) == GIF_OK else {
            throw Self.failure(gif.pointee.Error)
        }
        if loopCount != 1 {
            var application = Array("NETSCAPE2.0".utf8)
            var count: [UInt8] = [1, UInt8(truncatingIfNeeded: loopCount), UInt8(truncatingIfNeeded: loopCount >> 8)]
            guard EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK,
                EGifPutExtensionBlock(gif, 11, &application) == GIF_OK,
                EGifPutExtensionBlock(gif, 3, &count) == GIF_OK,
                EGifPutExtensionTrailer(gif) == GIF_OK
            else { throw Self.failure(gif.pointee.Error) }
        }
    }

    deinit {
        if gif != nil { EGifCloseFile(gif, nil) }
    }

    /// Adds one frame of RGBA pixels. The corresponding C functions are
    /// `EGifGCBToExtension`, `EGifPutExtension`, `EGifPutImageDesc` and `EGifPutLine`.
    func add(_ pixels: [UInt8], durationMilliseconds: Int) throws {
        guard let gif else { throw ImageCoreError(.failure, "GIF encoder already finished") }
        var palette = ColorQuantizer.quantize(pixels)
        var control = GraphicsControlBlock(
            DisposalMode: DISPOSE_BACKGROUND, UserInputFlag: false,
            DelayTime: Int32(clamping: (durationMilliseconds + 5) / 10),
            TransparentColor: Int32(palette.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
        var extensionBytes = [UInt8](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&control, &extensionBytes)
        // A colour map's size must be a power of two, at least 2.
        let used = palette.colors.count + (palette.transparentIndex == nil ? 0 : 1)
        var size = 2
        while size < used { size *= 2 }
        var entries = palette.colors.map { GifColorType(Red: $0.red, Green: $0.green, Blue: $0.blue) }
        entries += repeatElement(GifColorType(Red: 0, Green: 0, Blue: 0), count: size - entries.count)
        guard let map = GifMakeMapObject(Int32(size), &entries) else { throw ImageCoreError(.failure, "out of memory") }
        defer { GifFreeMapObject(map) }
        guard EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes) == GIF_OK,
            EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, map) == GIF_OK,
            EGifPutLine(gif, &palette.indices, Int32(width * height)) == GIF_OK
        else { throw Self.failure(gif.pointee.Error) }
    }

    /// The finished file. The corresponding C function is `EGifCloseFile`.
    func finish() throws -> [UInt8] {
        var error: Int32 = 0
        let status = EGifCloseFile(gif, &error)
        gif = nil
        guard status == GIF_OK else { throw Self.failure(error) }
        return output.bytes
    }

    /// Every frame of `image`, its durations and loop count.
    static func encode(_ image: DecodedImage) throws -> [UInt8] {
        let encoder = try GIFEncoder(width: image.width, height: image.height, loopCount: image.loopCount ?? 1)
        for frame in image.frames { try encoder.add(frame.pixels, durationMilliseconds: frame.durationMilliseconds) }
        return try encoder.finish()
    }

    private static func failure(_ code: Int32) -> ImageCoreError {
        ImageCoreError(
            .failure, "GIF encoding failed: \(GifErrorString(code).map { String(cString: $0) } ?? "error \(code)")")
    }
}
