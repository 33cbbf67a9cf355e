import TestSupport
import Testing

@testable import ImageCore

/// `GIFCompositor.draw` with a transparent index, which tests eight
/// indices at a time: every pixel is the frame's colour or, where the
/// index is the transparent one, the canvas's as it was, whatever the mix
/// of the eight (all transparent, none, some) and in the pixels after the
/// last eight of a row.
struct GIFCompositorTests {
    @Test(arguments: [1, 7, 8, 9, 16, 19, 33])
    func transparentIndicesLeaveTheCanvasAsItWas(width: Int) {
        let height = 4
        let palette: [UInt32] = (0..<256).map { UInt32($0) << 16 | 0x00_3070 }
        var compositor = GIFCompositor(width: width, height: height)
        // The canvas under the frame: index 200 everywhere.
        compositor.draw(
            [UInt8](repeating: 200, count: width * height), left: 0, top: 0, width: width, height: height,
            palette: palette, control: GIFCompositor.Control())
        compositor.dispose()
        // Rows: all transparent (5), none, alternating, runs of 9 and 3.
        var random = SplitMix(seed: UInt64(width))
        let indices: [UInt8] = (0..<(width * height)).map { index in
            let (y, x) = index.quotientAndRemainder(dividingBy: width)
            switch y {
            case 0: return 5
            case 1: return UInt8(6 + random.next() % 200)
            case 2: return x % 2 == 0 ? 5 : 7
            default: return (x / 9) % 2 == 0 ? 5 : UInt8(x % 3 == 0 ? 5 : 8)
            }
        }
        compositor.draw(
            indices, left: 0, top: 0, width: width, height: height, palette: palette,
            control: GIFCompositor.Control(disposal: 0, delay: 0, transparentIndex: 5))
        let expected: [UInt8] = indices.flatMap { index -> [UInt8] in
            let colour = palette[Int(index == 5 ? 200 : index)]
            return [UInt8(colour >> 16), UInt8(colour >> 8 & 255), UInt8(colour & 255), 255]
        }
        #expect(compositor.withCanvas { Array($0) } == expected)
    }
}
