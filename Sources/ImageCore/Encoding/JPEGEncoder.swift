internal import CTurboJPEG

/// RGBA pixels to JPEG through TurboJPEG (4:2:0, alpha dropped, as image
/// tools do when they write JPEG). All TurboJPEG compression calls live here.
enum JPEGEncoder {
    /// The corresponding C functions are `tjInitCompress`, `tjCompress2` and `tjFree`.
    static func encode(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw ImageCoreError(.failure, "cannot initialise TurboJPEG") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(handle, source.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGBA.rawValue),
                        &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { tjFree(buffer) }
        guard status == 0, let buffer else {
            throw ImageCoreError(.failure, "JPEG encoding failed: \(tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error")")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
