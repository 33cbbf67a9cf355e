/// A rectangle of pixels on a canvas, as half-open ranges; empty when
/// either range is.
struct PixelRect: Equatable {
    var x: Range<Int>
    var y: Range<Int>

    /// The whole of a `width` × `height` canvas.
    init(width: Int, height: Int) {
        self.init(x: 0..<width, y: 0..<height)
    }

    init(x: Range<Int>, y: Range<Int>) {
        self.x = x
        self.y = y
    }

    /// No pixels.
    static let empty = PixelRect(x: 0..<0, y: 0..<0)

    var isEmpty: Bool { x.isEmpty || y.isEmpty }
    var width: Int { x.count }
    var height: Int { y.count }

    /// The smallest rectangle holding both.
    func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return PixelRect(
            x: min(x.lowerBound, other.x.lowerBound)..<max(x.upperBound, other.x.upperBound),
            y: min(y.lowerBound, other.y.lowerBound)..<max(y.upperBound, other.y.upperBound))
    }

    /// The rectangle grown to hold the pixel at (`px`, `py`).
    func including(x px: Int, y py: Int) -> PixelRect {
        union(PixelRect(x: px..<(px + 1), y: py..<(py + 1)))
    }

    /// The smallest rectangle holding every pixel that differs between two
    /// `width` × `height` RGBA frames. Pixels are compared eight at a time
    /// where they agree, from either end of a row, and right of what is
    /// already known to change only.
    static func changed(
        from old: UnsafeRawBufferPointer, to new: UnsafeRawBufferPointer, width: Int, height: Int
    ) -> PixelRect {
        var changed = PixelRect.empty
        for y in 0..<height {
            let row = y * width * 4
            func samePair(_ x: Int) -> Bool {
                old.loadUnaligned(fromByteOffset: row + x * 4, as: UInt64.self)
                    == new.loadUnaligned(fromByteOffset: row + x * 4, as: UInt64.self)
            }
            func same(_ x: Int) -> Bool {
                old.loadUnaligned(fromByteOffset: row + x * 4, as: UInt32.self)
                    == new.loadUnaligned(fromByteOffset: row + x * 4, as: UInt32.self)
            }
            func sameEight(_ x: Int) -> Bool {
                var difference: UInt64 = 0
                for word in 0..<4 {
                    let offset = row + x * 4 + word * 8
                    difference |=
                        old.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        ^ new.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                }
                return difference == 0
            }
            var first = 0
            while first + 8 <= width && sameEight(first) { first += 8 }
            while first + 2 <= width && samePair(first) { first += 2 }
            while first < width && same(first) { first += 1 }
            guard first < width else { continue }
            let floor = max(first, changed.x.upperBound)
            var last = width - 1
            while last >= floor + 7 && sameEight(last - 7) { last -= 8 }
            while last >= floor + 1 && samePair(last - 1) { last -= 2 }
            while last >= floor && same(last) { last -= 1 }
            changed = changed.union(PixelRect(x: first..<max(first + 1, last + 1), y: y..<(y + 1)))
        }
        return changed
    }
}
