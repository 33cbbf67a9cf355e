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

    @Test func formatsRoundTrip() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.iso8601(784_111_777) == "1994-11-06T08:49:37Z")
        #expect(HTTPDate.iso8601(0) == "1970-01-01T00:00:00Z")
    }
}
