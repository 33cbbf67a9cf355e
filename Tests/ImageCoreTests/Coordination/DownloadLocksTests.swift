import Testing

@testable import ImageCore

/// The byte of `downloads.lock` a key's hash names must stay the one every
/// other imgcache process (and every earlier version) locks for it.
struct DownloadLocksTests {
    /// (A hash is a SHA-256 digest in hex: never signed, which `Int64(_:radix:)` would read.)
    @Test func aHashNamesTheByteOfItsFirstFifteenHexDigits() {
        let hashes = [
            Digest.sha256Hex(Array("https://example.com/a.png".utf8)), "0123456789abcdef0", "FFFFFFFFFFFFFFF",
            "fffffffffffffff", "00000000000000a", "1", "", "12g4",
        ]
        for hash in hashes {
            #expect(DownloadLocks.offset(hash) == (Int64(hash.prefix(15), radix: 16) ?? 0), "\(hash)")
        }
        #expect(DownloadLocks.offset("0123456789abcdef0") == 0x0123_4567_89ab_cde)
    }
}
