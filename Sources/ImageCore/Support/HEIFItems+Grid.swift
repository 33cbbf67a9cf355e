// A grid item's output size, from the `ImageGrid` descriptor that is its
// data (in the file or in `idat`, as `iloc` places it): the one item whose
// data `HEIFItems` reads itself, so that `--json` and the header limits know a
// grid's size before libheif sees the file. Not `private`, which would not
// reach across files: internal to ImageCore.

extension HEIFItems {
    /// The first bytes (up to 64) of a grid item's data, from its extents
    /// in the file or in `idat`; nil if not whole.
    static func gridData(
        _ location: (method: Int, baseOffset: Int, extents: [(offset: Int, length: Int)]), in meta: ArraySlice<UInt8>,
        bytes: [UInt8]
    ) -> [UInt8]? {
        var data: [UInt8] = []
        for (offset, length) in location.extents {
            let source: ArraySlice<UInt8>
            switch location.method {
            case 0: source = bytes[...]
            case 1:
                guard let idat = ISOBoxes.box("idat", in: meta) else { return nil }
                source = idat
            default: return nil
            }
            let (start, overflow) = location.baseOffset.addingReportingOverflow(offset)
            // A length of 0 means "to the end"; a grid descriptor is 8 to 12 bytes.
            let count = length == 0 ? 12 : min(length, 64)
            guard !overflow, start <= source.count - min(count, source.count) else { return nil }
            let from = source.startIndex + start
            data += source[from..<min(from + count, source.endIndex)]
        }
        return data
    }

    /// An `ImageGrid` descriptor: version, flags (bit 0: 32-bit sizes),
    /// rows − 1, columns − 1, output width, output height.
    static func gridLayout(_ data: [UInt8]) -> (rows: Int, columns: Int, width: Int, height: Int)? {
        guard data.count >= 8 else { return nil }
        let fieldBytes = data[1] & 1 == 1 ? 4 : 2
        guard data.count >= 4 + 2 * fieldBytes else { return nil }
        let fields = data[...]
        return (
            Int(data[2]) + 1, Int(data[3]) + 1,
            Int(ISOBoxes.readUInt(fields, at: 4, bytes: fieldBytes)),
            Int(ISOBoxes.readUInt(fields, at: 4 + fieldBytes, bytes: fieldBytes))
        )
    }
}
