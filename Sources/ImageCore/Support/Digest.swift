internal import CImageCoreShims

/// Digests in lowercase hex. SHA-256 (Nettle, which uses the CPU's SHA
/// extensions where present) names cache files after keys, where a
/// collision must be infeasible even for a URL chosen to cause one. XXH3-128
/// (xxHash) checks entries' bytes: it only has to catch damage, and is many
/// times faster.
enum Digest {
    /// The hex SHA-256 of `bytes`. The corresponding C function is `sha256_update`.
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { sha256Hex(of: $0) }
    }

    /// The hex SHA-256 of `text`'s UTF-8, read where the string keeps it: a
    /// cache key's name, made once a URL (no copy of its bytes into an array).
    static func sha256Hex(utf8 text: String) -> String {
        var text = text
        return text.withUTF8 { sha256Hex(of: UnsafeRawBufferPointer($0)) }
    }

    /// The hex SHA-256 of `text`'s UTF-8, with its first 64 bits as a number
    /// (big-endian): what a cache key is hashed by in a set or dictionary.
    static func sha256HexAndWord(utf8 text: String) -> (hex: String, word: UInt64) {
        var text = text
        return text.withUTF8 { text in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                imgcache_sha256(text.baseAddress, text.count, digest.baseAddress)
                let word = digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
                return (hex(UnsafeBufferPointer(digest)), word)
            }
        }
    }

    /// The digest on the stack, then its hex: no array a call (with the
    /// copy of a key's bytes, 1.2 k of a cold URL's instructions, callgrind).
    private static func sha256Hex(of buffer: UnsafeRawBufferPointer) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            imgcache_sha256(buffer.baseAddress, buffer.count, digest.baseAddress)
            return hex(UnsafeBufferPointer(digest))
        }
    }

    /// The hex PBKDF2-HMAC-SHA256 of `secret` with `salt` over `iterations`
    /// rounds: slow on purpose, so that a digest kept on disk does not let
    /// a short password be guessed quickly. The corresponding C function is
    /// `pbkdf2_hmac_sha256`.
    static func stretchedHex(_ secret: [UInt8], salt: String, iterations: UInt32) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let salt = Array(salt.utf8)
        secret.withUnsafeBytes { secret in
            salt.withUnsafeBytes { salt in
                digest.withUnsafeMutableBufferPointer {
                    imgcache_pbkdf2_sha256(
                        secret.baseAddress, secret.count, salt.baseAddress, salt.count, iterations, $0.baseAddress)
                }
            }
        }
        return hex(digest)
    }

    /// The hex XXH3-128 of `bytes` (32 digits). The corresponding C function is `XXH3_128bits`.
    static func xxh3Hex(_ bytes: [UInt8]) -> String {
        hex(xxh3(bytes))
    }

    /// The first 64 bits of XXH3-128 of `bytes`, as a number: the same on
    /// every machine and in every run (unlike Swift's seeded `Hasher`).
    static func xxh3Word(_ bytes: [UInt8]) -> UInt64 {
        // The digest on the stack: no array a call.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digest in
            bytes.withUnsafeBytes { imgcache_xxh3_128($0.baseAddress, $0.count, digest.baseAddress) }
            return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Appends `word`'s 16 hex digits (most significant first) to `bytes`:
    /// `xxh3Word`'s as the first 16 of `xxh3Hex`, with no string between.
    /// Written on the stack and appended once (a digit at a time, from a
    /// table, was 1.4 k instructions a record, callgrind).
    static func appendHex(of word: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { out in
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0xF
                out[index] = hexDigit(nibble)
            }
            bytes.append(contentsOf: out)
        }
    }

    /// The 16 bytes of XXH3-128 of `bytes`, big-endian (the canonical form).
    private static func xxh3(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeBytes { buffer in
            digest.withUnsafeMutableBufferPointer {
                imgcache_xxh3_128(buffer.baseAddress, buffer.count, $0.baseAddress)
            }
        }
        return digest
    }

    private static func hex(_ digest: [UInt8]) -> String {
        digest.withUnsafeBufferPointer { hex($0) }
    }

    private static func hex(_ digest: UnsafeBufferPointer<UInt8>) -> String {
        // Written into the string's own storage: no array between.
        String(unsafeUninitializedCapacity: digest.count * 2) { out in
            for index in digest.indices {
                out[2 * index] = hexDigit(digest[index] >> 4)
                out[2 * index + 1] = hexDigit(digest[index] & 0x0F)
            }
            return digest.count * 2
        }
    }

    /// The lowercase hex digit of `nibble` (0 to 15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
