internal import CImageCoreShims

extension PNGDecoder {
    /// Decodes a non-interlaced PNG at full size, handing rows of `channels`
    /// (3: RGB, alpha dropped; 4: RGBA) bytes per pixel to `sink` a few at a
    /// time, with no full-frame buffer. Returns false, having read nothing
    /// into `sink`, for an interlaced image, whose rows only come out
    /// complete after the last pass. The corresponding C functions are
    /// `imgcache_png_open` (png_read_info) and `imgcache_png_read_rows` (png_read_row).
    func stream(_ bytes: [UInt8], channels: Int, to sink: inout some RowSink) throws -> Bool {
        try PNGChunks.checkLengths(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            var info = imgcache_png_info()
            guard let reader = imgcache_png_open(buffer.baseAddress, buffer.count, &info) else {
                throw ImageCoreError(.image, "corrupt PNG: out of memory")
            }
            defer { imgcache_png_close(reader) }
            func check(_ status: Int32) throws {
                guard status == 0 else {
                    throw ImageCoreError(.image, "corrupt PNG: \(String(cString: imgcache_png_error(reader)))")
                }
            }
            try check(imgcache_png_error(reader) == nil ? 0 : -1)
            let (width, height) = (Int(info.width), Int(info.height))
            try limits.check(width: width, height: height)
            guard info.interlaced == 0 else { return false }
            try check(imgcache_png_start_rows(reader, Int32(channels)))
            try sink.begin(width: width, height: height, channels: channels)
            let stride = width * channels, chunkRows = JPEGDecoder.streamedRows
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * chunkRows, alignment: 16)
            defer { chunk.deallocate() }
            var row = 0
            while row < height {
                let count = min(chunkRows, height - row)
                try check(
                    imgcache_png_read_rows(
                        reader, chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), stride,
                        Int32(count)))
                try sink.write(rows: UnsafeRawBufferPointer(rebasing: chunk[..<(count * stride)]))
                row += count
            }
            try check(imgcache_png_finish(reader))
            return true
        }
    }
}
