import Testing

@testable import ImageCore

/// XXH3-128, which checks every stored body, gives xxHash's reference
/// answers (its stock SSE2 build, recorded) at lengths on each side of
/// 240 bytes, where inputs leave the scalar paths for the long loop that
/// runs with AVX2 on a CPU that has it: entries stored on one machine
/// verify on another.
struct DigestTests {
    static let references: [(Int, String)] = [
        (0, "99aa06d3014798d86001c324468d497f"),
        (16, "248181305d3c1039adebb1d9d080b69c"),
        (240, "b6f7bd89b91e21afd755c23217420e58"),
        (241, "c6eff592faaef7bb56a00f05e5bc379f"),
        (1024, "c020fec37588bdc64cfaafe894a89d23"),
        (4096, "a77ced3362ff73b9b1d101cdbe66c94d"),
        (100_000, "0a61fd0e50b54e2045f0da7a5698d41b"),
    ]

    @Test func xxh3GivesTheReferenceAnswers() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 7) }
        for (count, expected) in Self.references {
            #expect(Digest.xxh3Hex(Array(bytes.prefix(count))) == expected, "\(count) bytes")
        }
    }
}
