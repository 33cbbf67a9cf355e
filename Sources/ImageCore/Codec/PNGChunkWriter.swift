/// PNG chunks as bytes: what the APNG decoder writes to hand one frame to
/// libpng and what the APNG encoder writes, so neither reaches into the other.
enum PNGChunkWriter {
    /// Appends a chunk: length, type, data, CRC.
    static func append(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let start = png.count + 4
        png += bigEndian(data.count)
        png += Array(type.utf8)
        png += data
        png += bigEndian(Int(CRC32.checksum(png[start...])))
    }

    /// `value`'s low 32 bits, most significant byte first.
    static func bigEndian(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}
