/// The colour tables a planned GIF is written with: the global table holds
/// the colours of every frame drawn from the source's global table, and of
/// every other table while they fit in 256 entries (one kept for the
/// transparent index), so a source with a local table per frame usually
/// comes out with none. Colours no written pixel uses are dropped, which
/// shortens the table and, with it, every LZW code.
struct GIFColourTables {
    /// One table as written.
    struct Table {
        var colours: [UInt32] = []
        /// The transparent index (after the colours), or nil when no frame
        /// drawn with this table leaves a pixel as it was.
        var transparentIndex: Int?
    }

    /// The global table; empty when every frame has one of its own.
    private(set) var global = Table()
    /// Per planned palette: nil when it went into the global table.
    private(set) var locals: [Table?] = []
    /// Per planned palette, its colour indices to the written table's.
    private var mapping: [[Int]] = []

    init(_ plan: GIFFramePlanner) {
        let needsTransparency = plan.palettes.indices.map { palette in
            plan.frames.contains { $0.palette == palette && $0.indices.contains(GIFFramePlanner.keep) }
        }
        var globalLookup: [UInt32: Int] = [:]
        var globalTransparent = false
        mapping = Array(repeating: [], count: plan.palettes.count)
        locals = Array(repeating: nil, count: plan.palettes.count)
        // The source's global table first: it always goes into the global table.
        let order = plan.palettes.indices.sorted { !plan.palettes[$0].isLocal && plan.palettes[$1].isLocal }
        for number in order {
            let palette = plan.palettes[number]
            let (used, fitted) = Self.fit(palette, slots: needsTransparency[number] ? 255 : 256)
            let fresh = Set(used).subtracting(globalLookup.keys).count
            let globalSlots = global.colours.count + fresh + (globalTransparent || needsTransparency[number] ? 1 : 0)
            if !palette.isLocal || globalSlots <= 256 {
                for colour in used where globalLookup[colour] == nil {
                    globalLookup[colour] = global.colours.count
                    global.colours.append(colour)
                }
                globalTransparent = globalTransparent || needsTransparency[number]
                mapping[number] = fitted.map { $0 < 0 ? -1 : globalLookup[used[$0]]! }
            } else {
                mapping[number] = fitted
                locals[number] = Table(colours: used, transparentIndex: needsTransparency[number] ? used.count : nil)
            }
        }
        if globalTransparent { global.transparentIndex = global.colours.count }
    }

    /// The table a planned frame is written with.
    func table(for frame: GIFFramePlanner.Frame) -> Table {
        locals[frame.palette] ?? global
    }

    /// A planned frame's pixels as indices into its table.
    func indices(of frame: GIFFramePlanner.Frame) -> [UInt8] {
        let table = table(for: frame), map = mapping[frame.palette]
        let transparent = UInt8(table.transparentIndex ?? 0)
        return frame.indices.map { $0 == GIFFramePlanner.keep ? transparent : UInt8(map[Int($0)]) }
    }

    /// The colours of `palette` that pixels use, at most `slots` of them
    /// (the least used merged into their nearest remaining colour), and
    /// each of its indices to an index of that list (-1 for unused).
    static func fit(_ palette: GIFFramePlanner.Palette, slots: Int) -> (used: [UInt32], mapping: [Int]) {
        var kept = palette.colours.indices.filter { palette.uses[$0] > 0 }
        var dropped: [Int] = []
        if kept.count > slots {
            kept.sort { palette.uses[$0] > palette.uses[$1] }
            dropped = Array(kept[slots...])
            kept = Array(kept[..<slots]).sorted()
        }
        var mapping = [Int](repeating: -1, count: palette.colours.count)
        for (position, index) in kept.enumerated() { mapping[index] = position }
        if !dropped.isEmpty {
            var nearest = NearestColour(kept.map { palette.colours[$0] })
            for index in dropped { mapping[index] = Int(nearest.find(palette.colours[index]).index) }
        }
        return (kept.map { palette.colours[$0] }, mapping)
    }
}
