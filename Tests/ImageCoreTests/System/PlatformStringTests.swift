import Testing

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// `String(platformBytes:)` and `platformBytes`: every byte sequence comes
/// back exactly, UTF-8 is unchanged, and a byte that is not UTF-8 is shown
/// escaped (`\xE9`) or sent percent-encoded (`%E9`).
@Suite struct PlatformStringTests {
    @Test func everyByteSequenceComesBackExactly() {
        let samples: [[UInt8]] = [
            Array("café.png".utf8), [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x70], [0xFF], [0xC3], [0xE2, 0x82],
            [0xED, 0xA0, 0x80],  // a surrogate's encoding: not UTF-8
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xC0, 0xAF],  // overlong
            Array("\u{10FF80}\u{10FFE9}x\u{10FF7F}".utf8),  // characters in (and just below) the raw bytes' range
            [0xF4, 0x8F, 0xBF, 0xA9, 0xE9],
        ]
        for bytes in samples {
            let text = String(platformBytes: bytes)
            #expect(text.platformBytes == bytes, "\(bytes)")
            text.withPlatformString { cString in
                let passed = UnsafeBufferPointer(start: cString, count: strlen(cString)).map { UInt8(bitPattern: $0) }
                #expect(passed == bytes)
            }
        }
        // Every byte pair and every byte alone.
        for first in UInt8.min...UInt8.max where first != 0 {
            for second in [UInt8(0x41), 0x80, 0xA9, 0xBF, 0xE9] {
                #expect(String(platformBytes: [first, second]).platformBytes == [first, second])
            }
        }
    }

    @Test func utf8IsUnchangedAndRawBytesAreShownOrEncoded() {
        #expect(String(platformBytes: Array("café/日本.png".utf8)) == "café/日本.png")
        let latin1 = String(platformBytes: [0x63, 0x61, 0x66, 0xE9])
        #expect(latin1 != "caf\u{FFFD}")
        #expect(latin1.escapingRawBytes == "caf\\xE9")
        #expect(latin1.percentEncodingRawBytes == "caf%E9")
        #expect("http://h/é".percentEncodingRawBytes == "http://h/é")
        // A character of the raw bytes' range, given as UTF-8, is its four bytes.
        #expect(String(platformBytes: Array("\u{10FFE9}".utf8)).escapingRawBytes == "\\xF4\\x8F\\xBF\\xA9")
    }
}
