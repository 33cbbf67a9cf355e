internal import CImageCoreShims

/// Owns one libjpeg decompressor over a memory buffer; every libjpeg call
/// goes through the C shim (`jpeg_shims.c`), which keeps libjpeg's longjmp
/// inside C frames.
///
/// The buffer is borrowed, not copied: use an instance only inside
/// `JPEGDecompression.reading(_:_:)`, which keeps the bytes alive.
final class JPEGDecompression {
    /// Header facts from `jpeg_read_header`.
    struct Header {
        var width: Int
        var height: Int
        var isCMYK: Bool
        /// An Adobe APP14 marker: CMYK is stored inverted.
        var isAdobe: Bool
        /// The EXIF orientation from the first saved "Exif" APP1 segment; 1 if none.
        var orientation: Int
    }

    private let handle: OpaquePointer
    let header: Header
    /// Converts CMYK rows through the image's profile (`convertCMYK(through:)`).
    private var cmykTransform: ColourTransform?
    private var cmykRow: [UInt8] = []
    private var outputWidth = 0

    /// Reads the header of `bytes` and runs `body` with the decompressor.
    static func reading<Result>(_ bytes: [UInt8], _ body: (JPEGDecompression) throws -> Result) throws -> Result {
        try bytes.withUnsafeBufferPointer { buffer in
            try body(JPEGDecompression(buffer))
        }
    }

    /// The corresponding C functions are `jpeg_create_decompress`, `jpeg_mem_src`,
    /// and `jpeg_read_header` (the Exif segment is found in the bytes in place).
    private init(_ buffer: UnsafeBufferPointer<UInt8>) throws {
        guard let handle = imgcache_jpeg_create() else { throw ImageCoreError(.image, "cannot initialise libjpeg") }
        var header = imgcache_jpeg_header()
        guard imgcache_jpeg_read_header(handle, buffer.baseAddress, buffer.count, &header) == 0 else {
            let error = Self.error(handle)
            imgcache_jpeg_close(handle)
            throw error
        }
        self.handle = handle
        let orientation = header.exif.map {
            EXIFOrientation.read(exif: Array(UnsafeBufferPointer(start: $0, count: header.exif_size)))
        }
        self.header = Header(
            width: Int(header.width), height: Int(header.height), isCMYK: header.is_cmyk != 0,
            isAdobe: header.adobe != 0, orientation: orientation ?? 1)
    }

    deinit {
        imgcache_jpeg_close(handle)
    }

    /// The smallest libjpeg DCT scale M/8 (M = 1...8) whose output
    /// (`jdiv_round_up(side × M, 8)`) still covers `target` in both sides.
    static func scaleEighths(width: Int, height: Int, atLeast target: (width: Int, height: Int)) -> Int {
        (1...8).first { eighths in
            (width * eighths + 7) / 8 >= target.width && (height * eighths + 7) / 8 >= target.height
        } ?? 8
    }

    /// Starts decoding at `scaleEighths`/8 into `channels` (3: RGB, 4: RGBA)
    /// bytes per pixel, and returns the output size. Fails once a scan past
    /// `maxScans` is reached. The corresponding C function is `jpeg_start_decompress`.
    func start(scaleEighths: Int = 8, channels: Int, maxScans: Int) throws -> (width: Int, height: Int) {
        var width: UInt32 = 0, height: UInt32 = 0
        let scans = Int32(clamping: maxScans)
        guard imgcache_jpeg_start(handle, Int32(scaleEighths), Int32(channels), scans, &width, &height) == 0 else {
            throw Self.error(handle)
        }
        outputWidth = Int(width)
        return (Int(width), Int(height))
    }

    /// Decodes up to `maxRows` rows into `rows`, `stride` bytes apart;
    /// returns how many (0 at the end). CMYK and YCCK come out converted as
    /// `djpeg` converts them (R = C × K / 255, no colour management).
    /// Warnings are accepted (browsers show such images) except a premature
    /// end of data. The corresponding C function is `jpeg_read_scanlines`.
    func readRows(into rows: UnsafeMutableRawPointer, stride: Int, maxRows: Int) throws -> Int {
        if let cmykTransform { return try readCMYKRows(into: rows, stride: stride, maxRows: maxRows, cmykTransform) }
        let count = imgcache_jpeg_read_rows(handle, rows.assumingMemoryBound(to: UInt8.self), stride, Int32(maxRows))
        guard count >= 0 else { throw Self.error(handle) }
        return Int(count)
    }

    /// Call before `start`, for a CMYK or YCCK image: its rows then come
    /// out converted to sRGB through `transform` (made for the image's ICC
    /// profile and `channels`) instead of by djpeg's formula.
    /// The corresponding C function is `imgcache_jpeg_keep_cmyk`.
    func convertCMYK(through transform: ColourTransform) {
        imgcache_jpeg_keep_cmyk(handle)
        cmykTransform = transform
    }

    /// One CMYK row at a time into a scratch row, converted into `rows`.
    private func readCMYKRows(
        into rows: UnsafeMutableRawPointer, stride: Int, maxRows: Int, _ transform: ColourTransform
    ) throws -> Int {
        if cmykRow.count != outputWidth * 4 { cmykRow = [UInt8](repeating: 0, count: outputWidth * 4) }
        let width = outputWidth
        var count = 0
        while count < maxRows {
            let read = try cmykRow.withUnsafeMutableBufferPointer { row in
                let read = imgcache_jpeg_read_rows(handle, row.baseAddress, width * 4, 1)
                guard read >= 0 else { throw Self.error(handle) }
                if read == 1 { transform.convert(row.baseAddress!, to: rows + count * stride, count: width) }
                return read
            }
            guard read == 1 else { break }
            if transform.outputBytes == 4 {
                // Little CMS leaves an alpha it did not read alone.
                let target = (rows + count * stride).assumingMemoryBound(to: UInt8.self)
                for pixel in 0..<width { target[pixel * 4 + 3] = 255 }
            }
            count += 1
        }
        return count
    }

    /// The corresponding C function is `jpeg_finish_decompress`.
    func finish() throws {
        guard imgcache_jpeg_finish(handle) == 0 else { throw Self.error(handle) }
    }

    private static func error(_ handle: OpaquePointer) -> ImageCoreError {
        ImageCoreError(.image, "corrupt JPEG: \(String(cString: imgcache_jpeg_error(handle)))")
    }
}
