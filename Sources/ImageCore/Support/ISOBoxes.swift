/// Boxes of the ISO base media file format (ISO/IEC 14496-12), the
/// container of AVIF and HEIF: each a 32-bit big-endian size (1: a 64-bit
/// size follows the type; 0: to the end), a four-letter type, a payload.
/// Reads headers in place; nothing is copied or decoded.
enum ISOBoxes {
    /// The payload of the first box of `type` among the boxes in `data`
    /// (skipping `headerExtra` bytes of a full box's version and flags).
    static func box(_ type: String, in data: ArraySlice<UInt8>, headerExtra: Int = 0) -> ArraySlice<UInt8>? {
        boxes(type, in: data, headerExtra: headerExtra).first
    }

    /// The payloads of every box of `type` among the boxes in `data`, in
    /// order; the walk stops at a box that does not fit.
    static func boxes(_ type: String, in data: ArraySlice<UInt8>, headerExtra: Int = 0) -> [ArraySlice<UInt8>] {
        all(in: data, headerExtra: headerExtra).filter { $0.type == type }.map(\.payload)
    }

    /// Every box in `data`, with its type, in order.
    static func all(in data: ArraySlice<UInt8>, headerExtra: Int = 0) -> [(type: String, payload: ArraySlice<UInt8>)] {
        var found: [(type: String, payload: ArraySlice<UInt8>)] = []
        var index = data.startIndex
        while index + 8 <= data.endIndex {
            var size = Int(readUInt(data, at: index, bytes: 4))
            var header = 8
            if size == 1 {
                guard index + 16 <= data.endIndex else { break }
                size = data[(index + 8)..<(index + 16)].reduce(0) { $0 << 8 | Int($1) }
                header = 16
            } else if size == 0 {
                size = data.endIndex - index
            }
            guard size >= header + headerExtra, size <= data.endIndex - index else { break }
            let type = String(decoding: data[(index + 4)..<(index + 8)], as: UTF8.self)
            found.append((type, data[(index + header + headerExtra)..<(index + size)]))
            index += size
        }
        return found
    }

    /// A big-endian unsigned number of `bytes` bytes (0 to 8) at `index`;
    /// the caller has checked that they are there.
    static func readUInt(_ data: ArraySlice<UInt8>, at index: Int, bytes: Int) -> UInt64 {
        data[index..<(index + bytes)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
