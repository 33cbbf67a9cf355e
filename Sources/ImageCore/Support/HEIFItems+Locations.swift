// Where an item's data lies: its `iloc` entry (construction method, base
// offset, extents) and those extents as byte ranges of the file. Apart from
// `HEIFItems.swift` because `iloc`'s variable field sizes and its guards
// against a malformed or hostile table are a job of their own; read for the
// HEVC thumbnail's tiles (`fileExtents(of:fileSize:)`, `Catalogue`) and a
// grid's descriptor (`HEIFItems+Grid.swift`). Not `private`, which would not
// reach across files: internal to ImageCore.

extension HEIFItems {
    /// An `iloc` entry's extents as byte ranges of a file of `fileSize`
    /// bytes (`fileExtents(of:fileSize:)`).
    static func fileRanges(
        _ location: (method: Int, baseOffset: Int, extents: [(offset: Int, length: Int)]), fileSize: Int
    ) -> [Range<Int>]? {
        guard location.method == 0, !location.extents.isEmpty else { return nil }
        var ranges: [Range<Int>] = []
        for (offset, length) in location.extents {
            let (start, overflow) = location.baseOffset.addingReportingOverflow(offset)
            // A length of 0 means "to the end of the file".
            let end = length == 0 ? fileSize : start.addingReportingOverflow(length).partialValue
            guard !overflow, length >= 0, start >= 0, start < end, end <= fileSize, length == 0 || end - start == length
            else { return nil }
            ranges.append(start..<end)
        }
        return ranges
    }

    /// Item `id`'s `iloc` entry: its construction method (0: offsets in
    /// the file; 1: in `idat`), base offset and extents (offset, length);
    /// nil if it has none or `iloc` is malformed.
    static func itemExtents(
        _ id: Int, in meta: ArraySlice<UInt8>
    ) -> (method: Int, baseOffset: Int, extents: [(offset: Int, length: Int)])? {
        guard let table = LocationTable(meta) else { return nil }
        var index = table.first
        for _ in 0..<table.itemCount {
            guard let entry = table.entry(at: index, extents: false) else { return nil }
            if entry.item == id {
                return table.entry(at: index, extents: true).map { ($0.method, $0.baseOffset, $0.extents) }
            }
            index = entry.next
        }
        return nil
    }

    /// The `iloc` box: its field sizes, its item count and where its first entry starts.
    struct LocationTable {
        let iloc: ArraySlice<UInt8>
        let version: UInt8
        let offsetSize: Int, lengthSize: Int, baseOffsetSize: Int, indexSize: Int
        let itemCount: Int
        let first: Int

        init?(_ meta: ArraySlice<UInt8>) {
            guard let iloc = ISOBoxes.box("iloc", in: meta), iloc.count >= 8 else { return nil }
            self.iloc = iloc
            version = iloc[iloc.startIndex]
            let sizes = (Int(iloc[iloc.startIndex + 4]), Int(iloc[iloc.startIndex + 5]))
            (offsetSize, lengthSize) = (sizes.0 >> 4, sizes.0 & 15)
            (baseOffsetSize, indexSize) = (sizes.1 >> 4, version == 0 ? 0 : sizes.1 & 15)
            let countBytes = version == 2 ? 4 : 2
            guard iloc.count >= 6 + countBytes else { return nil }
            itemCount = Int(ISOBoxes.readUInt(iloc, at: iloc.startIndex + 6, bytes: countBytes))
            first = iloc.startIndex + 6 + countBytes
        }

        /// The entry starting at `start`: its item, construction method,
        /// base offset, extents (if `extents`, else none) and where the next
        /// entry starts; nil if it does not fit. Extents not asked for are
        /// stepped over whole: with all three sizes 0 an extent takes no
        /// bytes, and 65 535 of them an entry were read one by one.
        func entry(
            at start: Int, extents: Bool
        ) -> (item: Int, method: Int, baseOffset: Int, extents: [(offset: Int, length: Int)], next: Int)? {
            var index = start
            func read(_ count: Int) -> Int? {
                guard count <= 8, index + count <= iloc.endIndex else { return nil }
                defer { index += count }
                return Int(exactly: ISOBoxes.readUInt(iloc, at: index, bytes: count))
            }
            guard let item = read(version == 2 ? 4 : 2) else { return nil }
            let method = version == 0 ? 0 : (read(2) ?? 0) & 15
            guard read(2) != nil, let baseOffset = read(baseOffsetSize), let count = read(2) else { return nil }
            let recordBytes = indexSize + offsetSize + lengthSize
            guard count == 0 || max(indexSize, offsetSize, lengthSize) <= 8,
                count * recordBytes <= iloc.endIndex - index
            else { return nil }
            guard extents else { return (item, method, baseOffset, [], index + count * recordBytes) }
            var found: [(offset: Int, length: Int)] = []
            for _ in 0..<count {
                guard read(indexSize) != nil, let offset = read(offsetSize), let length = read(lengthSize) else {
                    return nil
                }
                found.append((offset, length))
            }
            return (item, method, baseOffset, found, index)
        }
    }
}
