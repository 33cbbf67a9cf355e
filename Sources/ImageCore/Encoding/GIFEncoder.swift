internal import CGIF

/// GIF through giflib's streaming encoder. `GIFFramePlanner` decides each
/// frame (its rectangle, the pixels left as they were, its disposal) and
/// `GIFColourTables` the tables; this writes them. Durations are rounded
/// to GIF's hundredths of a second. All giflib encoding calls live here.
final class GIFEncoder {
    /// Collects what giflib writes; reached through `GifFileType.UserData`.
    private final class Output { var bytes: [UInt8] = [] }

    private let output = Output()
    private var gif: UnsafeMutablePointer<GifFileType>?

    /// Starts a GIF89a: screen descriptor with the global table, and the
    /// NETSCAPE2.0 loop count unless the animation plays once (`loopCount`
    /// 1), as the decoder reads it back. The corresponding C functions are
    /// `EGifOpen`, `EGifPutScreenDesc` and `EGifPutExtension*`.
    private init(width: Int, height: Int, global: GIFColourTables.Table, loopCount: Int) throws {
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
        EGifSetGifVersion(gif, true)
        let map = try Self.colourMap(global)
        defer { GifFreeMapObject(map) }
        guard EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map) == GIF_OK else {
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

    /// Writes one planned frame. The corresponding C functions are
    /// `EGifGCBToExtension`, `EGifPutExtension`, `EGifPutImageDesc` and `EGifPutLine`.
    private func add(_ frame: GIFFramePlanner.Frame, tables: GIFColourTables) throws {
        guard let gif else { throw ImageCoreError(.failure, "GIF encoder already finished") }
        let table = tables.table(for: frame)
        var control = GraphicsControlBlock(
            DisposalMode: frame.clearsAfterwards ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, UserInputFlag: false,
            DelayTime: Int32(clamping: (frame.durationMilliseconds + 5) / 10),
            TransparentColor: Int32(table.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
        var extensionBytes = [UInt8](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&control, &extensionBytes)
        let local = tables.locals[frame.palette] != nil ? try Self.colourMap(table) : nil
        defer { if let local { GifFreeMapObject(local) } }
        var indices = tables.indices(of: frame)
        guard EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes) == GIF_OK,
            EGifPutImageDesc(
                gif, Int32(frame.rect.x.lowerBound), Int32(frame.rect.y.lowerBound), Int32(frame.rect.width),
                Int32(frame.rect.height), false, local) == GIF_OK,
            EGifPutLine(gif, &indices, Int32(indices.count)) == GIF_OK
        else { throw Self.failure(gif.pointee.Error) }
    }

    /// The finished file. The corresponding C function is `EGifCloseFile`.
    private func finish() throws -> [UInt8] {
        var error: Int32 = 0
        let status = EGifCloseFile(gif, &error)
        gif = nil
        guard status == GIF_OK else { throw Self.failure(error) }
        return output.bytes
    }

    /// Every frame of `image`, its durations and loop count.
    static func encode(_ image: DecodedImage) throws -> [UInt8] {
        var plan = GIFFramePlanner(width: image.width, height: image.height)
        for frame in image.frames {
            plan.add(frame.pixels, palette: frame.palette, durationMilliseconds: frame.durationMilliseconds)
        }
        let tables = GIFColourTables(plan)
        let encoder = try GIFEncoder(
            width: image.width, height: image.height, global: tables.global, loopCount: image.loopCount ?? 1)
        for frame in plan.frames { try encoder.add(frame, tables: tables) }
        return try encoder.finish()
    }

    /// A table as giflib's colour map (nil for an empty one), its size a
    /// power of two, at least 2. The corresponding C function is `GifMakeMapObject`.
    private static func colourMap(_ table: GIFColourTables.Table) throws -> UnsafeMutablePointer<ColorMapObject>? {
        let used = table.colours.count + (table.transparentIndex == nil ? 0 : 1)
        guard used > 0 else { return nil }
        var size = 2
        while size < used { size *= 2 }
        var entries = table.colours.map {
            GifColorType(
                Red: UInt8(truncatingIfNeeded: $0 >> 16), Green: UInt8(truncatingIfNeeded: $0 >> 8),
                Blue: UInt8(truncatingIfNeeded: $0))
        }
        entries += repeatElement(GifColorType(Red: 0, Green: 0, Blue: 0), count: size - entries.count)
        guard let map = GifMakeMapObject(Int32(size), &entries) else { throw ImageCoreError(.failure, "out of memory") }
        return map
    }

    private static func failure(_ code: Int32) -> ImageCoreError {
        ImageCoreError(
            .failure, "GIF encoding failed: \(GifErrorString(code).map { String(cString: $0) } ?? "error \(code)")")
    }
}
