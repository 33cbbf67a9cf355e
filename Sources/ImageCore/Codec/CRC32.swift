internal import CPNG

/// CRC-32 (ISO 3309), as PNG chunks carry it: zlib's, which libpng loads
/// anyway and which runs several bytes a step (a byte-table loop in Swift
/// was a tenth of a cold download's user time).
enum CRC32 {
    /// The CRC-32 of `bytes`. The corresponding C function is `crc32`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc = crc32(0, nil, 0)
            var rest = UnsafeBufferPointer(rebasing: buffer[...])
            // crc32 takes a 32-bit length.
            while !rest.isEmpty {
                let count = min(rest.count, Int(UInt32.max))
                crc = crc32(crc, rest.baseAddress, uInt(count))
                rest = UnsafeBufferPointer(rebasing: rest[count...])
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }
}
