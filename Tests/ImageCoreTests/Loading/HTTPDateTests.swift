import Testing

@testable import ImageCore

@Suite struct HTTPDateTests {
    @Test func parsesAllThreeForms() {
        let expected = 784_111_777.0
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("0") == nil)
        #expect(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
    }

    /// IMF-fixdates are read from their bytes; any other spelling word by
    /// word. Both must agree: a lower-cased date takes the word reader.
    @Test func theBytesAndTheWordReaderAgree() {
        for seconds in stride(from: -2_000_000_000.0, through: 5_000_000_000, by: 3_196_811) {
            let date = HTTPDate.format(seconds)
            #expect(HTTPDate.parse(date) == seconds, "\(date)")
            #expect(HTTPDate.parse(date.lowercased()) == seconds, "\(date.lowercased())")
        }
        for invalid in [
            "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nox 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 19x4 08:49:37 GMT", "S-n, 06 Nov 1994 08:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(invalid) == nil, "\(invalid)")
        }
    }

    @Test func formatsRoundTrip() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.iso8601(784_111_777) == "1994-11-06T08:49:37Z")
        #expect(HTTPDate.iso8601(0) == "1970-01-01T00:00:00Z")
    }
}
