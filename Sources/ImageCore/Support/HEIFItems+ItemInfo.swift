// What the `meta` box says about each item, in the three tables that name
// items: `iinf` (its type), `ipma` into `ipco` (its properties) and `iref`
// (its references to other items). Apart from `HEIFItems.swift`, which reads
// the primary item and keeps the results, so that each table's walk reads on
// its own; `catalogue(_:)` walks the same tables once for many items. Not
// `private`, which would not reach across files: internal to ImageCore.

extension HEIFItems {
    /// The type of item `id`, from its `infe` (version 2 or 3) in `iinf`.
    static func itemType(_ id: Int, in meta: ArraySlice<UInt8>) -> String? {
        guard let iinf = ISOBoxes.box("iinf", in: meta), iinf.count >= 6 else { return nil }
        let countBytes = iinf[iinf.startIndex] == 0 ? 2 : 4
        for infe in ISOBoxes.boxes("infe", in: iinf.dropFirst(4 + countBytes)) {
            if let (item, type) = itemInfo(infe), item == id { return type }
        }
        return nil
    }

    /// An `infe` box's item id and type (version 2 or 3), nil otherwise.
    static func itemInfo(_ infe: ArraySlice<UInt8>) -> (id: Int, type: String)? {
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
    static func properties(
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
    static func associations(
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

    /// Every reference in `iref` (version 0: 16-bit item ids; 1: 32-bit).
    static func references(in meta: ArraySlice<UInt8>) -> [(type: String, from: Int, to: [Int])] {
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
}
