#if canImport(Glibc)
    import Glibc
#endif

/// Counts the different keys in a stream in bounded memory: exactly up
/// to `exactLimit` of them (one hash each), then by HyperLogLog estimate
/// (Flajolet et al., 4096 one-byte registers: about 1.6 % error), so a
/// prefetch of millions of URLs keeps a flat memory footprint.
struct DistinctCounter {
    /// Up to this many different strings are counted exactly.
    static let exactLimit = 16_384
    private static let registerBits = 12

    private var exact: Set<Int>? = []
    private var registers: [UInt8] = []

    private var exactCount = 0

    /// The count so far (an estimate costs a pass over the registers).
    var count: Int { exact == nil ? estimate() : exactCount }
    /// Whether `count` is an estimate (more than `exactLimit` were seen).
    var isEstimate: Bool { exact == nil }

    /// Counts `key` if it has not been seen (as far as the counter can tell),
    /// by its SHA-256's first 64 bits: a hash already made, as uniform as
    /// HyperLogLog needs (the key's string hashed again cost 0.4 k a URL).
    mutating func insert(_ key: CacheKey) {
        let hash = key.word
        if exact != nil {
            if exact!.insert(Int(bitPattern: UInt(hash))).inserted { exactCount += 1 }
            if exactCount > Self.exactLimit { switchToEstimate() }
            return
        }
        add(hash)
    }

    private mutating func switchToEstimate() {
        registers = [UInt8](repeating: 0, count: 1 << Self.registerBits)
        for hash in exact ?? [] { add(UInt64(bitPattern: Int64(hash))) }
        exact = nil
    }

    private mutating func add(_ hash: UInt64) {
        let index = Int(hash >> UInt64(64 - Self.registerBits))
        let rest = hash << UInt64(Self.registerBits)
        let rank = UInt8(min(rest.leadingZeroBitCount, 64 - Self.registerBits) + 1)
        registers[index] = max(registers[index], rank)
    }

    /// HyperLogLog's estimate, with linear counting while registers are empty.
    private func estimate() -> Int {
        let m = Double(registers.count)
        let sum = registers.reduce(0.0) { $0 + 1 / Double(UInt64(1) << UInt64($1)) }
        let raw = 0.7213 / (1 + 1.079 / m) * m * m / sum
        let zeros = registers.lazy.filter { $0 == 0 }.count
        if raw <= 2.5 * m, zeros > 0 { return Int((m * log(m / Double(zeros))).rounded()) }
        return Int(raw.rounded())
    }
}
