import Testing

@testable import ImageCore

/// The prefetch summary's count of different URLs: exact for ordinary
/// lists, an estimate in bounded memory past `DistinctCounter.exactLimit`.
struct DistinctCounterTests {
    @Test func countsExactlyUpToTheLimit() {
        var counter = DistinctCounter()
        for index in 0..<DistinctCounter.exactLimit { counter.insert(CacheKey("http://h/\(index % 1000)")) }
        #expect(counter.count == 1000 && !counter.isEstimate)
        for index in 0..<DistinctCounter.exactLimit { counter.insert(CacheKey("http://h/\(index)")) }
        #expect(counter.count == DistinctCounter.exactLimit && !counter.isEstimate)
    }

    @Test(arguments: [40_000, 200_000])
    func estimatesWithinAFewPercentPastIt(distinct: Int) {
        var counter = DistinctCounter()
        for round in 0..<2 {
            for index in 0..<distinct {
                counter.insert(CacheKey("http://example.test/img/\(index).jpg?round=\(round % 1)"))
            }
        }
        #expect(counter.isEstimate)
        let error = abs(Double(counter.count - distinct)) / Double(distinct)
        // The hash is the key's SHA-256, the same in every run, and so is
        // the error; the standard error is 1.6 %: 7 % is over four of those
        // (when the hash was seeded anew in each process, 5 % failed one run
        // in about 250), and a wrong estimator is off by far more.
        #expect(error < 0.07, "estimated \(counter.count) of \(distinct)")
    }
}
