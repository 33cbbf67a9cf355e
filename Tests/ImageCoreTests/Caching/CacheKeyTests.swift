import Testing

@testable import ImageCore

@Suite struct CacheKeyTests {
    @Test func hashesTheExactURLByDefault() {
        let key = CacheKeyPolicy.exactURL.key(for: "http://127.0.0.1/a.jpg?x=1#frag")
        #expect(key.string == "http://127.0.0.1/a.jpg?x=1")
        #expect(key.hash.count == 64)
        #expect(key.hash.allSatisfy { $0.isHexDigit })
        #expect(CacheKey("abc").hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func canIgnoreTheQuery() {
        let policy = CacheKeyPolicy(ignoresQuery: true)
        #expect(policy.key(for: "http://h/a.jpg?sig=1") == policy.key(for: "http://h/a.jpg?sig=2"))
    }

    @Test func stripsNamedParametersOnly() {
        let policy = CacheKeyPolicy(strippedParameters: ["sig", "exp"])
        #expect(policy.key(for: "http://h/a.jpg?w=10&sig=abc&exp=5").string == "http://h/a.jpg?w=10")
        #expect(policy.key(for: "http://h/a.jpg?sig=abc").string == "http://h/a.jpg")
        #expect(policy.key(for: "http://h/a.jpg?signature=1").string == "http://h/a.jpg?signature=1")
    }
}
