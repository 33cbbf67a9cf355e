internal import CWebP

#if canImport(Glibc)
    import Glibc
#endif

extension WebPDecoder {
    /// Bytes of the file handed to the incremental decoder at a time.
    private static let streamedBytes = 64 * 1024

    /// Decodes a still WebP at full size with libwebp's incremental decoder,
    /// handing rows of `channels` (3: RGB, 4: RGBA) bytes per pixel to
    /// `sink` as each batch is finished. Returns false, having called
    /// nothing, for an animation. The corresponding C functions are
    /// `WebPINewRGB`, `WebPIUpdate`, `WebPIDecGetRGB` and `WebPIDelete`.
    func stream(_ bytes: [UInt8], channels: Int, to sink: inout some RowSink) throws -> Bool {
        let info = try inspect(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            guard info.frameCount == 1, try !WebPContainer(buffer).isAnimated else { return false }
            let stride = info.width * channels, size = stride * info.height
            // Why mmap: the incremental decoder writes into one buffer the
            // size of the frame. Rows already handed on are given back to the
            // kernel (MADV_DONTNEED), so only the rows in flight stay resident.
            guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                base != MAP_FAILED
            else { throw ImageCoreError(.image, "WebP: cannot map \(size) bytes for decoding") }
            defer { munmap(base, size) }
            let mode = channels == 4 ? MODE_RGBA : MODE_RGB
            guard let decoder = WebPINewRGB(mode, base.assumingMemoryBound(to: UInt8.self), size, Int32(stride)) else {
                throw ImageCoreError(.image, "corrupt WebP: cannot start the decoder")
            }
            defer { WebPIDelete(decoder) }
            try sink.begin(width: info.width, height: info.height, channels: channels)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            var (available, written, released) = (0, 0, 0)
            while written < info.height {
                guard available < buffer.count else {
                    throw ImageCoreError(.image, "corrupt WebP: the bitstream ends early")
                }
                available = min(buffer.count, available + Self.streamedBytes)
                let status = WebPIUpdate(decoder, buffer.baseAddress, available)
                guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else {
                    throw ImageCoreError(.image, "corrupt WebP: the bitstream does not decode")
                }
                var lastRow: Int32 = 0
                _ = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil)
                let finished = min(info.height, Int(lastRow))
                guard finished > written else { continue }
                try sink.write(
                    rows: UnsafeRawBufferPointer(start: base + written * stride, count: (finished - written) * stride))
                written = finished
                let end = written * stride / page * page
                if end > released {
                    madvise(base + released, end - released, MADV_DONTNEED)
                    released = end
                }
            }
            return true
        }
    }
}
