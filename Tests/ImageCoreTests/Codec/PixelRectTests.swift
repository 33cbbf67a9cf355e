import Testing

@testable import ImageCore

/// `PixelRect.changed`, which compares eight pixels at a time from either
/// end of a row: the smallest rectangle holding every differing pixel,
/// wherever the differences fall against the blocks of eight.
struct PixelRectTests {
    @Test(arguments: [1, 7, 8, 9, 17, 25])
    func changedHoldsExactlyTheDifferingPixels(width: Int) {
        let height = 3
        let old = [UInt8](repeating: 9, count: width * height * 4)
        func changed(_ pixels: [(x: Int, y: Int)]) -> PixelRect {
            var new = old
            for (x, y) in pixels { new[(y * width + x) * 4 + 2] = 10 }
            return old.withUnsafeBytes { old in
                new.withUnsafeBytes { PixelRect.changed(from: old, to: $0, width: width, height: height) }
            }
        }
        #expect(changed([]).isEmpty)
        for y in 0..<height {
            for x in 0..<width {
                #expect(changed([(x, y)]) == PixelRect(x: x..<(x + 1), y: y..<(y + 1)))
                // A second difference further right, in the same row and in the next.
                for right in x..<width {
                    #expect(changed([(x, y), (right, y)]) == PixelRect(x: x..<(right + 1), y: y..<(y + 1)))
                    if y + 1 < height {
                        #expect(changed([(x, y), (right, y + 1)]) == PixelRect(x: x..<(right + 1), y: y..<(y + 2)))
                    }
                }
            }
        }
    }
}
