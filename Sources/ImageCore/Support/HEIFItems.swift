/// The primary item of a HEIF file (ISO/IEC 23008-12), read from its `meta`
/// box alone: the item's type, the properties associated with it (`ipma`
/// into `ipco`: `ispe`, `colr`, `irot`, ...) and, for a grid, the grid's
/// output size from the item's data (`iloc`, in the file or in `idat`).
/// Nothing is decoded, no library is loaded: what `--json` and the header
/// limits need before libheif sees the file. Other items (a grid's tiles,
/// thumbnails, auxiliary images) are reached through the item references
/// (`iref`) and read the same way, for the HEVC thumbnail path.
///
/// This file holds what is read and kept, and the questions asked of it;
/// each table's walk is in a file of its own: `HEIFItems+ItemInfo.swift`
/// (`iinf`, `ipma`/`ipco`, `iref`), `HEIFItems+Locations.swift` (`iloc`) and
/// `HEIFItems+Grid.swift` (a grid's descriptor).
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
}
