import Testing

@testable import ImageCore

/// The marker walk that checks a download before it is stored, on
/// hand-made streams: entropy-coded data with stuffed bytes, restart
/// markers and fill bytes, which are data, not markers.
struct JPEGMarkersTests {
    private let head: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00]
    private let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x02]
    /// Stuffed 0xFF 0x00, a restart marker and a fill byte before the next marker.
    private let data: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF]
    private let end: [UInt8] = [0xFF, 0xD9]

    @Test func aCompleteStreamReachesItsEnd() {
        let walk = JPEGMarkers.walk(head + scan + data + end)
        #expect(walk.scans == 1)
        #expect(walk.complete)
    }

    @Test func scansAreCountedPastTheirData() {
        let walk = JPEGMarkers.walk(head + scan + data + scan + data + scan + [0x01] + end)
        #expect(walk.scans == 3)
        #expect(walk.complete)
    }

    @Test func aStreamCutShortIsIncomplete() {
        let whole = head + scan + data + end
        for length in 4..<(whole.count - 1) {
            #expect(!JPEGMarkers.walk(Array(whole.prefix(length))).complete, "cut at \(length)")
        }
    }

    @Test func dataEndingInAMarkerPrefixIsIncomplete() {
        #expect(!JPEGMarkers.walk(head + scan + [0x12, 0xFF]).complete)
    }

    /// The scan's end is found by vectors, 128 and 64 bytes a step, then a
    /// byte at a time: a marker at every offset around those edges, after
    /// data with stuffed bytes and restart markers (and a fill byte before
    /// it at odd offsets), ends the data there, and the next scan is counted.
    @Test func theDataEndsAtAMarkerAtEveryOffset() {
        for offset in 0..<300 {
            var data = (0..<offset).map { UInt8($0 % 0x7F + 1) }
            for index in stride(from: offset % 5, to: offset - 1, by: 9) {
                data[index] = 0xFF
                data[index + 1] = index % 2 == 0 ? 0x00 : 0xD3
            }
            if offset % 2 == 1 { data[offset - 1] = 0xFF }
            let walk = JPEGMarkers.walk(head + scan + data + scan + [0x01] + end)
            #expect(walk.scans == 2, "marker at \(offset)")
            #expect(walk.complete, "marker at \(offset)")
        }
    }
}
