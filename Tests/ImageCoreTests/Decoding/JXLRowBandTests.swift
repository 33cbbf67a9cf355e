import Dispatch
import Testing

@testable import ImageCore

/// `JXLRowBand` fed as libjxl's thread pool feeds it: pieces of rows, one
/// group (256 × 256 pixels) per task, groups in no order, on several threads
/// at once. No libjxl here, so the order is ours to choose and the test
/// needs no more CPUs than the machine has.
struct JXLRowBandTests {
    /// The byte the band must write for sample `channel` of pixel (x, y).
    static func expected(_ x: Int, _ y: Int, _ channel: Int) -> UInt8 { UInt8((x * 7 + y * 3 + channel * 50) % 256) }

    /// Hands every group of a `width` × `height` image to `band`, a row
    /// piece at a time in each group, the groups in `order`, on many threads.
    static func feed(_ band: JXLRowBand<CollectedRows>, width: Int, height: Int, channels: Int, order: [Int]) {
        let across = (width + 255) / 256
        DispatchQueue.concurrentPerform(iterations: order.count) { index in
            let group = order[index]
            let (left, top) = (group % across * 256, group / across * 256)
            let count = min(256, width - left)
            for y in top..<min(top + 256, height) {
                let piece = (0..<(count * channels)).map { sample in
                    Float(expected(left + sample / channels, y, sample % channels)) / 255
                }
                piece.withUnsafeBufferPointer { band.receive(x: left, y: y, count: count, pixels: $0.baseAddress!) }
            }
        }
    }

    @Test(arguments: [
        (width: 600, height: 1300, channels: 3, reversed: false),
        (600, 1300, 4, true),
        (1000, 700, 3, true),
    ])
    func rowsArriveWholeAndInOrderWhateverOrderThePiecesCameIn(
        width: Int, height: Int, channels: Int, reversed: Bool
    ) throws {
        let groups = (width + 255) / 256 * ((height + 255) / 256)
        // Reversed: the last group row first, so the ring must grow to hold it.
        let order = reversed ? Array((0..<groups).reversed()) : (0..<groups).map { ($0 * 7) % groups }
        #expect(Set(order).count == groups)
        var rows = CollectedRows()
        rows.width = width
        rows.channels = channels
        let band = JXLRowBand(rows, width: width, height: height, channels: channels)
        Self.feed(band, width: width, height: height, channels: channels, order: order)
        try band.finish()
        let written = band.sink.bytes
        #expect(written.count == width * height * channels)
        let wrong = (0..<min(written.count, width * height * channels)).first { index in
            let (pixel, channel) = index.quotientAndRemainder(dividingBy: channels)
            return written[index] != Self.expected(pixel % width, pixel / width, channel)
        }
        #expect(wrong == nil, "first wrong byte at \(wrong ?? 0)")
    }

    @Test func missingRowsAreAnError() {
        var rows = CollectedRows()
        rows.width = 300
        rows.channels = 3
        let band = JXLRowBand(rows, width: 300, height: 300, channels: 3)
        // Every group but the last: its rows never become whole.
        Self.feed(band, width: 300, height: 300, channels: 3, order: [0, 1, 2])
        #expect(throws: ImageCoreError.self) { try band.finish() }
        #expect(band.sink.bytes.count == 256 * 300 * 3)
    }
}
