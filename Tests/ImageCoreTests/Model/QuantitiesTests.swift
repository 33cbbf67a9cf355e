import Testing

@testable import ImageCore

@Suite struct QuantitiesTests {
    @Test(arguments: [
        ("100", 100), ("64M", 64 << 20), ("512K", 512 << 10), ("1KiB", 1024), ("2G", 2 << 30),
        ("10 MB", 10 << 20), ("0", 0), ("1.5K", 1536),
    ])
    func parsesSizes(text: String, bytes: Int) {
        #expect(Quantities.parseSize(text) == bytes)
    }

    @Test(arguments: ["", "M", "-1", "12Q", "1e400"])
    func rejectsBadSizes(text: String) {
        #expect(Quantities.parseSize(text) == nil)
    }

    @Test func parsesCountsInPowersOfAThousand() {
        #expect(Quantities.parseCount("100M") == 100_000_000)
        #expect(Quantities.parseCount("2G") == 2_000_000_000)
        #expect(Quantities.parseCount("1.5k") == 1500)
        #expect(Quantities.parseCount("5000") == 5000)
        #expect(
            Quantities.parseCount("12Q") == nil && Quantities.parseCount("-1") == nil
                && Quantities.parseCount("") == nil)
    }

    @Test(arguments: [("90s", 90.0), ("15m", 900), ("12h", 43200), ("7d", 604_800), ("2w", 1_209_600), ("30", 30)])
    func parsesDurations(text: String, seconds: Double) {
        #expect(Quantities.parseDuration(text) == seconds)
    }

    @Test(arguments: ["", "d", "5y", "-3d"])
    func rejectsBadDurations(text: String) {
        #expect(Quantities.parseDuration(text) == nil)
    }

    @Test func formatsForPeople() {
        #expect(Quantities.formatSize(512) == "512 B")
        #expect(Quantities.formatSize(1536) == "1.5 KiB")
        #expect(Quantities.formatDuration(604_800) == "7d")
        #expect(Quantities.formatDuration(86400 * 3) == "3d")
        #expect(Quantities.formatDuration(90) == "90s")
    }
}
