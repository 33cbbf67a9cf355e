// A file of its own, beside both of its users rather than inside one:
// GIFFramePlanner maps each frame's pixels to its palette with it (and keeps
// one per palette, so its cache lives from frame to frame), and
// GIFColourTables merges a table's least used colours into their nearest kept
// one with it. It holds no state of either.

/// The nearest colour of a table to a colour, by squared Euclidean distance
/// in RGB, remembered for colours asked before (thumbnails repeat colours).
/// The table is searched in order of red outward from the colour's own red,
/// stopping where the red difference alone is further than the best found.
struct NearestColour {
    /// The table's colours sorted by red, with their indices.
    private let byRed: [(colour: UInt32, index: UInt16)]
    private var cache: [UInt32: (index: UInt16, distance: Int)] = [:]

    init(_ colours: [UInt32]) {
        byRed = colours.enumerated().map { ($0.element, UInt16($0.offset)) }.sorted { $0.colour < $1.colour }
    }

    mutating func find(_ colour: UInt32) -> (index: UInt16, distance: Int) {
        if let known = cache[colour] { return known }
        var best = (index: UInt16(0), distance: Int.max)
        // 0xRRGGBB sorts by red first: the first entry whose colour is not below this one's.
        var low = 0, high = byRed.count
        while low < high {
            let middle = (low + high) / 2
            if byRed[middle].colour < colour { low = middle + 1 } else { high = middle }
        }
        let red = Int(colour >> 16)
        func consider(_ candidate: Int) {
            let distance = Self.distance(byRed[candidate].colour, colour)
            if distance < best.distance || (distance == best.distance && byRed[candidate].index < best.index) {
                best = (byRed[candidate].index, distance)
            }
        }
        // A direction ends where the red difference alone is further than the best so far
        // (equal may still tie with a lower index, which wins as in a search in table order).
        func beyond(_ candidate: Int) -> Bool {
            let difference = Int(byRed[candidate].colour >> 16) - red
            return difference * difference > best.distance
        }
        var up = low, down = low - 1
        while true {
            let goesUp = up < byRed.count && !beyond(up), goesDown = down >= 0 && !beyond(down)
            guard goesUp || goesDown else { break }
            if goesUp {
                consider(up)
                up += 1
            }
            if goesDown {
                consider(down)
                down -= 1
            }
        }
        cache[colour] = best
        return best
    }

    /// Squared Euclidean distance of two 0xRRGGBB colours.
    static func distance(_ a: UInt32, _ b: UInt32) -> Int {
        let red = Int((a >> 16) & 0xFF) - Int((b >> 16) & 0xFF)
        let green = Int((a >> 8) & 0xFF) - Int((b >> 8) & 0xFF)
        let blue = Int(a & 0xFF) - Int(b & 0xFF)
        return red * red + green * green + blue * blue
    }
}
