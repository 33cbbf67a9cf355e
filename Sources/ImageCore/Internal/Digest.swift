import Crypto

/// SHA-256 in lowercase hex: names cache files after keys and checks entries'
/// bytes. BoringSSL's implementation uses the CPU's SHA extensions where present.
enum Digest {
    /// The hex SHA-256 of `bytes`.
    static func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
        hex(SHA256.hash(data: Array(bytes)))
    }

    /// The hex SHA-256 of a contiguous buffer.
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ digest: SHA256.Digest) -> String {
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
