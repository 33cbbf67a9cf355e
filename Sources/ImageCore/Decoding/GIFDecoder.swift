internal import CGIF

/// GIF through giflib's record-level API (not DGifSlurp, which allocates
/// every frame before anything can be checked): the logical screen and each
/// frame are checked against the limits before their pixels are read, and
/// every frame is composited onto the canvas as browsers do.
struct GIFDecoder {
    let limits: DecodingLimits

    /// Header facts, every block walked to the trailer (`GIFStructure`,
    /// which decodes nothing and loads no library): what a download must
    /// pass before it is stored.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try GIFStructure.read(bytes, limits: limits)
    }

    /// Every frame, composited, held in memory.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        var collector = FrameCollector()
        try decode(bytes, into: &collector)
        return collector.image(.gif)
    }

    /// Hands each composited frame to `sink` as soon as it is ready; only the
    /// canvas (and one saved copy for disposal 3) is held.
    func decode(_ bytes: [UInt8], into sink: inout some FrameSink) throws {
        let file = try GIFFile(bytes)
        let width = Int(file.gif.pointee.SWidth), height = Int(file.gif.pointee.SHeight)
        try limits.check(width: width, height: height)
        var compositor = GIFCompositor(width: width, height: height)
        try sink.begin(width: width, height: height)
        let info = try file.read(limits: limits, compositor: &compositor, into: &sink)
        try sink.finish(loopCount: info.loopCount)
    }
}

/// Owns a giflib decoder reading from memory; all giflib calls live here.
/// giflib reports errors through `int *Error` and the handle's `Error`
/// field, never by jumping, so Swift can call it directly.
final class GIFFile {
    let gif: UnsafeMutablePointer<GifFileType>
    private let source: GIFMemorySource
    /// The LZW decoder's table and a frame's data, kept from frame to frame.
    private var lzw = GIFLZW()
    private var data: [UInt8] = []

    /// The corresponding C function is `DGifOpen`.
    init(_ bytes: [UInt8]) throws {
        source = GIFMemorySource(bytes)
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), gifRead, &error) else {
            throw ImageCoreError(.image, "corrupt GIF: \(Self.describe(error))")
        }
        self.gif = gif
    }

    /// The corresponding C function is `DGifCloseFile`.
    deinit {
        var error: Int32 = 0
        DGifCloseFile(gif, &error)
    }

    /// Walks every record, decodes each frame into `compositor` and hands
    /// the composited canvas to `sink`. Returns the header facts
    /// (`GIFStructure` reads the same ones without decoding).
    func read(
        limits: DecodingLimits, compositor: UnsafeMutablePointer<GIFCompositor>,
        into sink: inout some FrameSink
    ) throws -> ImageInfo {
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        try limits.check(width: width, height: height)
        var frames = 0
        var durations: [Int] = []
        var loopCount: Int?
        var control = GIFCompositor.Control()
        let global = Self.palette(gif.pointee.SColorMap, isLocal: false)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            try check(DGifGetRecordType(gif, &record))
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                try check(DGifGetImageDesc(gif))
                frames += 1
                durations.append(control.delay * 10)
                let desc = gif.pointee.Image
                try limits.check(width: width, height: height, frames: frames)
                try limits.check(width: Int(desc.Width), height: Int(desc.Height))
                let indices = try readIndices(
                    width: Int(desc.Width), height: Int(desc.Height), interlaced: desc.Interlace)
                let palette = desc.ColorMap.map { Self.palette($0, isLocal: true) } ?? global
                compositor.pointee.draw(
                    indices, left: Int(desc.Left), top: Int(desc.Top), width: Int(desc.Width),
                    height: Int(desc.Height), palette: palette.colours, control: control)
                try compositor.pointee.withCanvas {
                    try sink.write(frame: $0, palette: palette, durationMilliseconds: control.delay * 10)
                }
                compositor.pointee.dispose()
                control = GIFCompositor.Control()
            case EXTENSION_RECORD_TYPE:
                try readExtension(&control, &loopCount)
            case TERMINATE_RECORD_TYPE:
                guard frames > 0 else { throw ImageCoreError(.image, "corrupt GIF: no image in the file") }
                return ImageInfo(
                    format: .gif, width: width, height: height, frameCount: frames,
                    loopCount: frames > 1 ? (loopCount ?? 1) : nil, frameDurations: frames > 1 ? durations : [])
            default:
                throw ImageCoreError(.image, "corrupt GIF: unknown record")
            }
        }
    }

    /// Reads a frame's palette indices in row order, undoing interlacing:
    /// giflib hands over the frame's data sub-blocks (`DGifGetCode`,
    /// `DGifGetCodeNext`), and `GIFLZW` decodes them, as giflib's
    /// `DGifGetLine` would, in a twentieth of the instructions.
    private func readIndices(width: Int, height: Int, interlaced: Bool) throws -> [UInt8] {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        data.removeAll(keepingCapacity: true)
        try check(DGifGetCode(gif, &codeSize, &block))
        while let bytes = block {
            data.append(contentsOf: UnsafeBufferPointer(start: bytes + 1, count: Int(bytes[0])))
            try check(DGifGetCodeNext(gif, &block))
        }
        let count = width * height
        // GIFLZW copies strings eight bytes at a time: 8 bytes of room past the last pixel.
        let indices = try [UInt8](unsafeUninitializedCapacity: count + 8) { output, initialized in
            do {
                try data.withUnsafeBufferPointer {
                    try lzw.decode($0, codeSize: Int(codeSize), into: output.baseAddress!, count: count)
                }
            } catch {
                let code = (error as? GIFLZW.Failure) == .endTooSoon ? D_GIF_ERR_EOF_TOO_SOON : D_GIF_ERR_IMAGE_DEFECT
                throw ImageCoreError(.image, "corrupt GIF: \(Self.describe(code))")
            }
            initialized = count
        }
        guard interlaced, height > 1 else { return indices }
        let rows = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in stride(from: start, to: height, by: step) }
        return [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
            indices.withUnsafeBufferPointer { source in
                for (index, row) in rows.enumerated() {
                    (target.baseAddress! + row * width).initialize(
                        from: source.baseAddress! + index * width, count: width)
                }
            }
            initialized = count
        }
    }

    /// Reads one extension: graphics control (delay, disposal, transparency)
    /// and the NETSCAPE2.0 loop count matter; the rest is skipped. The
    /// corresponding C functions are `DGifGetExtension`,
    /// `DGifGetExtensionNext` and `DGifExtensionToGCB`.
    private func readExtension(_ control: inout GIFCompositor.Control, _ loopCount: inout Int?) throws {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtension(gif, &code, &block))
        var isNetscape = false
        if let data = block {
            let length = Int(data[0])
            if code == GRAPHICS_EXT_FUNC_CODE && length >= 4 {
                var gcb = GraphicsControlBlock()
                if DGifExtensionToGCB(length, data + 1, &gcb) == GIF_OK {
                    control = GIFCompositor.Control(
                        disposal: Int(gcb.DisposalMode), delay: Int(gcb.DelayTime),
                        transparentIndex: Int(gcb.TransparentColor))
                }
            } else if code == APPLICATION_EXT_FUNC_CODE && length == 11 {
                isNetscape = (1...11).map { data[$0] } == Array("NETSCAPE2.0".utf8)
            }
        }
        while true {
            try check(DGifGetExtensionNext(gif, &block))
            guard let data = block else { break }
            if isNetscape && data[0] >= 3 && data[1] == 1 {
                loopCount = Int(data[2]) | Int(data[3]) << 8
            }
        }
    }

    private static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, isLocal: Bool) -> FramePalette {
        guard let map, let colors = map.pointee.Colors else { return FramePalette(colours: [], isLocal: isLocal) }
        let colours = (0..<Int(max(0, map.pointee.ColorCount))).map {
            UInt32(colors[$0].Red) << 16 | UInt32(colors[$0].Green) << 8 | UInt32(colors[$0].Blue)
        }
        return FramePalette(colours: colours, isLocal: isLocal)
    }

    private func check(_ status: Int32) throws {
        guard status == GIF_OK else { throw ImageCoreError(.image, "corrupt GIF: \(Self.describe(gif.pointee.Error))") }
    }

    /// The corresponding C function is `GifErrorString`.
    private static func describe(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0).lowercased() } ?? "error \(code)"
    }
}

/// The bytes giflib reads, through `gifRead`.
final class GIFMemorySource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Copies up to `length` bytes; fewer at the end (giflib then reports a read error).
    func read(into target: UnsafeMutablePointer<GifByteType>, _ length: Int) -> Int {
        let count = min(length, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { source in
            target.update(from: source.baseAddress! + offset, count: count)
        }
        offset += count
        return count
    }
}

/// giflib's input function: `UserData` is the unretained `GIFMemorySource`.
private let gifRead: InputFunc = { gif, target, length in
    guard let gif, let target, let context = gif.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFMemorySource>.fromOpaque(context).takeUnretainedValue()
    return Int32(source.read(into: target, Int(length)))
}
