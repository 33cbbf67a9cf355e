import Synchronization

/// The keys this process stored into a cache directory it made empty:
/// which of them can have an entry there, known without asking the disk.
/// A bit per value of the hash's first 16 bits (8 KiB in all): two keys
/// sharing a bit cost a look-up, never a wrong answer.
///
/// Thread safety: any thread; the bits are behind a lock held for one word.
final class StoredThisRun: Sendable {
    private let bits = Mutex<[UInt64]>(Array(repeating: 0, count: 1 << 10))

    /// Notes that `hash`'s entry may be on disk from now on.
    func insert(_ hash: String) {
        let bit = Self.bit(hash)
        bits.withLock { $0[bit >> 6] |= 1 << UInt64(bit & 63) }
    }

    /// Whether this process may have stored `hash`'s entry.
    func mayContain(_ hash: String) -> Bool {
        let bit = Self.bit(hash)
        return bits.withLock { $0[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }
    }

    /// The hash's first four hex digits (any other text: its first bytes, still a bit of its own).
    private static func bit(_ hash: String) -> Int {
        var value = 0
        for byte in hash.utf8.prefix(4) {
            let digit: UInt8 =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                default: byte & 15
                }
            value = value << 4 | Int(digit)
        }
        return value
    }
}
