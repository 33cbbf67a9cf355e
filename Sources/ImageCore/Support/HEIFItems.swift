/// The primary item of a HEIF file (ISO/IEC 23008-12), read from its `meta`
/// box alone: the item's type, the properties associated with it (`ipma`
/// into `ipco`: `ispe`, `colr`, `irot`, ...) and, for a grid, the grid's
/// output size from the item's data (`iloc`, in the file or in `idat`).
/// Nothing is decoded, no library is loaded: what `--json` and the header
/// limits need before libheif sees the file. Other items (a grid's tiles,
/// thumbnails, auxiliary images) are reached through the item references
/// (`iref`) and read the same way, for the HEVC thumbnail path.
struct HEIFItems {
    /// The primary item's id (`pitm`).
    var primary: Int
    /// The primary item's type: "hvc1", "grid", "av01", "jpeg", ...
    var primaryType: String
    /// The primary item's properties, in association order.
    var properties: [(type: String, payload: ArraySlice<UInt8>)]
    /// For a grid: its rows and columns and the size it writes.
    var grid: (rows: Int, columns: Int, width: Int, height: Int)?
    /// The item references (`iref`): `type` (`dimg`, `thmb`, `auxl`, ...)
    /// from item `from` to the items `to`, in order.
    var references: [(type: String, from: Int, to: [Int])]
    private let meta: ArraySlice<UInt8>

    /// The primary item's `ispe` (its size before `clap` and `irot`), if any.
    var spatialExtent: (width: Int, height: Int)? { Self.spatialExtent(properties) }

    /// The `ispe` among `properties`, if any.
    static func spatialExtent(
        _ properties: [(type: String, payload: ArraySlice<UInt8>)]
    ) -> (
        width: Int, height: Int
    )? {
        guard let ispe = properties.first(where: { $0.type == "ispe" })?.payload, ispe.count >= 12 else {
            return nil
        }
        let base = ispe.startIndex + 4  // version and flags
        return (
            Int(ISOBoxes.readUInt(ispe, at: base, bytes: 4)), Int(ISOBoxes.readUInt(ispe, at: base + 4, bytes: 4))
        )
    }

    /// Reads the primary item; nil when the `meta` box or its `pitm` is
    /// missing or malformed (libheif then says what is wrong).
    init?(_ bytes: [UInt8]) {
        guard let meta = ISOBoxes.box("meta", in: bytes[...], headerExtra: 4),
            let pitm = ISOBoxes.box("pitm", in: meta), pitm.count >= 6
        else { return nil }
        // Version 0: a 16-bit id; otherwise 32 bits, which a 6-byte box lacks.
        let idBytes = pitm[pitm.startIndex] == 0 ? 2 : 4
        guard pitm.count >= 4 + idBytes else { return nil }
        let primary = Int(ISOBoxes.readUInt(pitm, at: pitm.startIndex + 4, bytes: idBytes))
        guard let type = Self.itemType(primary, in: meta) else { return nil }
        self.meta = meta
        self.primary = primary
        primaryType = type
        properties = Self.properties(of: primary, in: meta)
        references = Self.references(in: meta)
        grid =
            type == "grid"
            ? Self.itemExtents(primary, in: meta).flatMap { Self.gridData($0, in: meta, bytes: bytes) }.flatMap(
                Self.gridLayout) : nil
    }

    /// The type of item `id` ("hvc1", ...), nil if it has no `infe`.
    func type(of id: Int) -> String? { Self.itemType(id, in: meta) }

    /// The properties associated with item `id`, in association order.
    func properties(of id: Int) -> [(type: String, payload: ArraySlice<UInt8>)] {
        id == primary ? properties : Self.properties(of: id, in: meta)
    }

    /// Item `id`'s data as byte ranges of the file, in order, when `iloc`
    /// places it there (construction method 0) and every extent lies inside
    /// `fileSize` bytes; nil otherwise (in `idat`, or malformed).
    func fileExtents(of id: Int, fileSize: Int) -> [Range<Int>]? {
        Self.itemExtents(id, in: meta).flatMap { Self.fileRanges($0, fileSize: fileSize) }
    }

    /// The types, properties and data of the items `ids` (a grid's tiles,
    /// thumbnails), with `iinf`, `ipma` and `iloc` each walked once for
    /// all of them: `type(of:)`, `properties(of:)` and `fileExtents(of:)`
    /// walk them once an item, so a grid of 65 536 tiles over tables of
    /// 65 536 items (a file of a few MB) took billions of steps.
    func catalogue(_ ids: [Int]) -> Catalogue {
        let wanted = Set(ids)
        var catalogue = Catalogue(meta: meta)
        if let iinf = ISOBoxes.box("iinf", in: meta), iinf.count >= 6 {
            let countBytes = iinf[iinf.startIndex] == 0 ? 2 : 4
            for infe in ISOBoxes.boxes("infe", in: iinf.dropFirst(4 + countBytes)) {
                if let (id, type) = Self.itemInfo(infe), wanted.contains(id), catalogue.types[id] == nil {
                    catalogue.types[id] = type
                }
            }
        }
        Self.associations(in: meta) { id, property in
            if wanted.contains(id) { catalogue.properties[id, default: []].append(property) }
        }
        if let table = LocationTable(meta) {
            var index = table.first
            for _ in 0..<table.itemCount {
                guard let entry = table.entry(at: index, extents: false) else { break }
                if wanted.contains(entry.item), catalogue.locations[entry.item] == nil {
                    catalogue.locations[entry.item] = index
                }
                index = entry.next
            }
        }
        return catalogue
    }

    /// Items' types, properties and `iloc` entries, read once (`catalogue(_:)`).
    struct Catalogue {
        fileprivate let meta: ArraySlice<UInt8>
        fileprivate var types: [Int: String] = [:]
        fileprivate var properties: [Int: [(type: String, payload: ArraySlice<UInt8>)]] = [:]
        /// Where each item's `iloc` entry starts.
        fileprivate var locations: [Int: Int] = [:]

        /// `HEIFItems.type(of:)` of an item asked for.
        func type(of id: Int) -> String? { types[id] }

        /// `HEIFItems.properties(of:)` of an item asked for.
        func properties(of id: Int) -> [(type: String, payload: ArraySlice<UInt8>)] { properties[id] ?? [] }

        /// `HEIFItems.fileExtents(of:fileSize:)` of an item asked for.
        func fileExtents(of id: Int, fileSize: Int) -> [Range<Int>]? {
            guard let index = locations[id], let table = LocationTable(meta),
                let entry = table.entry(at: index, extents: true)
            else { return nil }
            return HEIFItems.fileRanges((entry.method, entry.baseOffset, entry.extents), fileSize: fileSize)
        }
    }

    /// An `iloc` entry's extents as byte ranges of a file of `fileSize`
    /// bytes (`fileExtents(of:fileSize:)`).
    private static func fileRanges(
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

    /// The type of item `id`, from its `infe` (version 2 or 3) in `iinf`.
    private static func itemType(_ id: Int, in meta: ArraySlice<UInt8>) -> String? {
        guard let iinf = ISOBoxes.box("iinf", in: meta), iinf.count >= 6 else { return nil }
        let countBytes = iinf[iinf.startIndex] == 0 ? 2 : 4
        for infe in ISOBoxes.boxes("infe", in: iinf.dropFirst(4 + countBytes)) {
            if let (item, type) = itemInfo(infe), item == id { return type }
        }
        return nil
    }

    /// An `infe` box's item id and type (version 2 or 3), nil otherwise.
    private static func itemInfo(_ infe: ArraySlice<UInt8>) -> (id: Int, type: String)? {
        guard infe.count >= 12 else { return nil }
        let version = infe[infe.startIndex]
        guard version >= 2 else { return nil }
        let idBytes = version == 2 ? 2 : 4
        let base = infe.startIndex + 4
        guard infe.count >= 4 + idBytes + 2 + 4 else { return nil }
        let typeStart = base + idBytes + 2
        return (
            Int(ISOBoxes.readUInt(infe, at: base, bytes: idBytes)),
            String(decoding: infe[typeStart..<(typeStart + 4)], as: UTF8.self)
        )
    }

    /// The properties `ipma` associates with item `id`, from `ipco`.
    private static func properties(
        of id: Int, in meta: ArraySlice<UInt8>
    ) -> [(type: String, payload: ArraySlice<UInt8>)] {
        var found: [(type: String, payload: ArraySlice<UInt8>)] = []
        associations(in: meta) { item, property in
            if item == id { found.append(property) }
        }
        return found
    }

    /// Calls `body(item, property)` for every association in `ipma` with
    /// a property of `ipco`, in order.
    private static func associations(
        in meta: ArraySlice<UInt8>, _ body: (Int, (type: String, payload: ArraySlice<UInt8>)) -> Void
    ) {
        guard let iprp = ISOBoxes.box("iprp", in: meta), let ipco = ISOBoxes.box("ipco", in: iprp) else { return }
        let all = ISOBoxes.all(in: ipco)
        for ipma in ISOBoxes.boxes("ipma", in: iprp) where ipma.count >= 8 {
            let version = ipma[ipma.startIndex], wideIndex = ipma[ipma.startIndex + 3] & 1 == 1
            var index = ipma.startIndex + 8
            for _ in 0..<ISOBoxes.readUInt(ipma, at: ipma.startIndex + 4, bytes: 4) {
                let idBytes = version == 0 ? 2 : 4
                guard index + idBytes + 1 <= ipma.endIndex else { break }
                let item = Int(ISOBoxes.readUInt(ipma, at: index, bytes: idBytes))
                let count = Int(ipma[index + idBytes])
                index += idBytes + 1
                let entryBytes = wideIndex ? 2 : 1
                guard index + count * entryBytes <= ipma.endIndex else { break }
                for entry in 0..<count {
                    let raw = Int(ISOBoxes.readUInt(ipma, at: index + entry * entryBytes, bytes: entryBytes))
                    let property = raw & (wideIndex ? 0x7FFF : 0x7F)  // the top bit is `essential`
                    if property >= 1, property <= all.count { body(item, all[property - 1]) }
                }
                index += count * entryBytes
            }
        }
    }

    /// Item `id`'s `iloc` entry: its construction method (0: offsets in
    /// the file; 1: in `idat`), base offset and extents (offset, length);
    /// nil if it has none or `iloc` is malformed.
    private static func itemExtents(
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
    private struct LocationTable {
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

    /// The first bytes (up to 64) of a grid item's data, from its extents
    /// in the file or in `idat`; nil if not whole.
    private static func gridData(
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

    /// Every reference in `iref` (version 0: 16-bit item ids; 1: 32-bit).
    private static func references(in meta: ArraySlice<UInt8>) -> [(type: String, from: Int, to: [Int])] {
        guard let iref = ISOBoxes.box("iref", in: meta), iref.count >= 4 else { return [] }
        let idBytes = iref[iref.startIndex] == 0 ? 2 : 4
        var found: [(type: String, from: Int, to: [Int])] = []
        for (type, payload) in ISOBoxes.all(in: iref.dropFirst(4)) {
            guard payload.count >= idBytes + 2 else { continue }
            let from = Int(ISOBoxes.readUInt(payload, at: payload.startIndex, bytes: idBytes))
            let count = Int(ISOBoxes.readUInt(payload, at: payload.startIndex + idBytes, bytes: 2))
            guard payload.count >= idBytes + 2 + count * idBytes else { continue }
            let to = (0..<count).map {
                Int(ISOBoxes.readUInt(payload, at: payload.startIndex + idBytes + 2 + $0 * idBytes, bytes: idBytes))
            }
            found.append((type, from, to))
        }
        return found
    }

    /// An `ImageGrid` descriptor: version, flags (bit 0: 32-bit sizes),
    /// rows − 1, columns − 1, output width, output height.
    private static func gridLayout(_ data: [UInt8]) -> (rows: Int, columns: Int, width: Int, height: Int)? {
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
