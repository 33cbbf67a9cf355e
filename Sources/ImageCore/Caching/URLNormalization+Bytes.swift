// The byte classes and escapes of WHATWG's URL standard that the key's
// normal form, the request form and the syntax check share: what a path
// percent-encodes, what a host may not contain, where an authority ends, a
// scheme's default port and hex digits. Apart so that each of those files
// reads as the steps it takes (ASCII case, which only the key changes, stays
// private to `URLNormalization.swift`). Not `private`, which would not reach
// across files: internal to ImageCore. Decoding `%XX` is `PercentDecoding`'s.

extension URLNormalization {
    static func defaultPort(_ scheme: String) -> String? {
        switch scheme.lowercased() {
        case "http": "80"
        case "https": "443"
        default: nil
        }
    }

    static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// An ASCII tab, LF or CR: WHATWG URL parsing removes them from its input before anything else.
    static func isTabOrNewline(_ byte: UInt8) -> Bool { byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Bytes WHATWG percent-encodes in a path or query: controls, space,
    /// `"`, `<`, `>`, DEL and every non-ASCII byte.
    static func needsEncoding(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">")
    }

    /// WHATWG's forbidden domain code points: controls, space, `#`, `%`,
    /// `/`, `:`, `<`, `>`, `?`, `@`, `[`, `\`, `]`, `^`, `|` and DEL.
    /// A switch, not a `Set`: a warm hit checks its URL's host, and the
    /// first `Set<UInt8>` built cost it 15 k instructions (callgrind).
    static func isForbiddenInHost(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F, UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["),
            UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"):
            true
        default: false
        }
    }

    static func isHex(_ byte: UInt8) -> Bool { PercentDecoding.hexValue(byte) != nil }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x41 + value - 10
    }
}
