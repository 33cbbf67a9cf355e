internal import CImageCoreShims
internal import CWebP

/// Puts an image's ICC profile, byte for byte, into an encoded file: JPEG
/// `APP2 ICC_PROFILE` segments, PNG (and APNG) `iCCP`, WebP `ICCP` through
/// WebPMux (stills and animations alike). AVIF gets its `colr` from the
/// encoder (`AVIFEncoder`), JPEG XL its profile from libjxl (`JXLEncoder`). Nothing else of the source's metadata is ever
/// written: the encoders start from pixels.
enum ProfileEmbedding {
    /// Profile bytes per JPEG APP2 segment: 65 535 less the length field
    /// and the 14-byte "ICC_PROFILE\0" + sequence + count header.
    static let jpegSegmentBytes = 65_519

    /// `bytes` (a file of `format` just encoded) with `icc` embedded.
    static func embed(_ icc: [UInt8], in bytes: [UInt8], format: OutputFormat.Encoding) throws -> [UInt8] {
        switch format {
        case .jpeg: try jpeg(icc, in: bytes)
        case .png: try png(icc, in: bytes)
        case .webp: try webp(icc, in: bytes)
        case .gif, .avif, .jxl: bytes
        }
    }

    /// APP2 segments after SOI and a JFIF APP0, in order (ICC.1 annex B.4).
    static func jpeg(_ icc: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let count = (icc.count + jpegSegmentBytes - 1) / jpegSegmentBytes
        guard count <= 255, bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw ImageCoreError(.failure, "cannot embed a \(icc.count)-byte ICC profile in JPEG")
        }
        var at = 2
        if bytes[2] == 0xFF, bytes[3] == 0xE0, bytes.count >= 6 { at = 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) }
        var out = Array(bytes[..<at])
        out.reserveCapacity(bytes.count + icc.count + count * 18)
        for index in 0..<count {
            let chunk = icc[(index * jpegSegmentBytes)..<min(icc.count, (index + 1) * jpegSegmentBytes)]
            let length = 2 + 14 + chunk.count
            out += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)]
            out += chunk
        }
        return out + bytes[at...]
    }

    /// An `iCCP` chunk right after IHDR (before PLTE, acTL and IDAT, as PNG requires).
    static func png(_ icc: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let afterHeader = 8 + 8 + 13 + 4
        guard bytes.count > afterHeader, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            throw ImageCoreError(.failure, "cannot embed an ICC profile: not a PNG")
        }
        var compressed = [UInt8](repeating: 0, count: imgcache_zlib_bound(icc.count))
        let size = icc.withUnsafeBufferPointer { source in
            compressed.withUnsafeMutableBufferPointer { target in
                imgcache_zlib_deflate(source.baseAddress, source.count, target.baseAddress, target.count)
            }
        }
        guard size > 0 else { throw ImageCoreError(.failure, "cannot compress the ICC profile") }
        // Name "icc" (1-79 Latin-1 bytes), NUL, compression method 0, zlib data.
        let data = Array("icc".utf8) + [0, 0] + compressed.prefix(size)
        var chunk = [UInt8]()
        chunk += bigEndian(data.count)
        chunk += Array("iCCP".utf8) + data
        chunk += bigEndian(Int(CRC32.checksum(chunk[4...])))
        return Array(bytes[..<afterHeader]) + chunk + withoutColourChunks(bytes[afterHeader...])
    }

    /// The chunks of `chunks` but `sRGB`, `gAMA` and `cHRM`, which libpng's
    /// writer adds and which must not contradict an `iCCP` (PNG 3rd edition 11.3.2).
    private static func withoutColourChunks(_ chunks: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(chunks.count)
        var index = chunks.startIndex
        while index + 12 <= chunks.endIndex {
            let length = chunks[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = min(chunks.endIndex, index + 12 + length)
            let type = chunks[(index + 4)..<(index + 8)]
            if !["sRGB", "gAMA", "cHRM"].contains(where: { type.elementsEqual($0.utf8) }) {
                out += chunks[index..<end]
            }
            index = end
        }
        return out + chunks[index...]
    }

    /// The `ICCP` chunk set through WebPMux, which also writes the VP8X
    /// header and its ICC flag. The corresponding C functions are
    /// `WebPMuxCreate`, `WebPMuxSetChunk` and `WebPMuxAssemble`.
    static func webp(_ icc: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBufferPointer { source in
            try icc.withUnsafeBufferPointer { profile in
                var image = WebPData(bytes: source.baseAddress, size: source.count)
                guard let mux = WebPMuxCreate(&image, 0) else {
                    throw ImageCoreError(.failure, "cannot embed an ICC profile: WebPMux refuses the file")
                }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: profile.baseAddress, size: profile.count)
                var output = WebPData()
                WebPDataInit(&output)
                defer { WebPDataClear(&output) }
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK,
                    WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let assembled = output.bytes
                else { throw ImageCoreError(.failure, "cannot embed an ICC profile in WebP") }
                return Array(UnsafeBufferPointer(start: assembled, count: output.size))
            }
        }
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}
