internal import CImageCoreShims

/// CRC-32 (ISO 3309), as PNG chunks carry it, with zlib's answers: folded
/// with carry-less multiplication where the CPU has it (about 0.2
/// instructions a byte, where zlib's `crc32` took 4: a cold batch's PNG
/// checks were 41 M of its 533 M instructions), else by tables eight bytes
/// a step. Either way no library is loaded for it.
enum CRC32 {
    /// The CRC-32 of `bytes`. The corresponding C function is `imgcache_crc32`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { imgcache_crc32(0, $0.baseAddress, $0.count) }
    }
}
