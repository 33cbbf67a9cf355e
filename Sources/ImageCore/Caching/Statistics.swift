import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Cumulative counters of a cache directory, as `ccache -s` keeps them.
///
/// A process counts in memory and adds its counts to one of 16 shard files
/// when it finishes, under an exclusive `flock` on that shard, so concurrent
/// processes lose no increments; a reader sums the shards, each read under
/// a shared `flock` (the writer rewrites a shard in place, so a read without
/// it could see old and new text mixed).
///
/// Remote counters are also kept per storage (each shard of a sharded one),
/// as `COUNTER STORAGE N` lines beside the `COUNTER N` totals; a reader
/// that predates them skips those lines.
public final class Statistics: Sendable {
    /// One counter.
    public enum Counter: String, Sendable, CaseIterable {
        case memoryHits = "memory-hits"
        case diskHits = "disk-hits"
        case misses
        case downloads
        case revalidations
        case failures
        case evictions
        case bytesDownloaded = "bytes-downloaded"
        case corruptEntries = "corrupt-entries"
        case remoteHits = "remote-hits"
        case remoteMisses = "remote-misses"
        case remoteErrors = "remote-errors"
        case remoteUploads = "remote-uploads"
    }

    // This process's counts by `Counter.allCases` position. An array, not a
    // `[Counter: Int]`: a warm hit counts and flushes, and the first
    // dictionary keyed by `Counter` makes the Swift runtime search every
    // protocol conformance in the binary for its `Hashable` (about 200 000
    // instructions, callgrind).
    private let counts = Mutex<[Int]>(Array(repeating: 0, count: Counter.allCases.count))
    private let storageCounts = Mutex<[String: [Counter: Int]]>([:])

    /// Counters starting at zero.
    public init() {}

    /// Adds `amount` to a counter.
    public func add(_ counter: Counter, _ amount: Int = 1) {
        let position = counter.position
        counts.withLock { $0[position] += amount }
    }

    /// Adds `amount` to a counter and to that counter of one remote storage
    /// (`storage`: its masked description, which holds no space).
    public func add(_ counter: Counter, storage: String, _ amount: Int = 1) {
        add(counter, amount)
        storageCounts.withLock { $0[storage, default: [:]][counter, default: 0] += amount }
    }

    /// This process's counts per remote storage so far.
    public var storageSnapshot: [String: [Counter: Int]] {
        storageCounts.withLock { $0 }
    }

    /// This process's counts so far: the counters that moved.
    public var snapshot: [Counter: Int] {
        let values = counts.withLock { $0 }
        var result: [Counter: Int] = [:]
        for (counter, value) in zip(Counter.allCases, values) where value != 0 { result[counter] = value }
        return result
    }

    /// Adds this process's counts to the directory's totals and resets them.
    public func flush(to directory: CacheDirectory) throws {
        let pending = counts.withLock { counts in
            defer { for position in counts.indices { counts[position] = 0 } }
            return counts
        }
        let pendingByStorage = storageCounts.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        guard pending.contains(where: { $0 != 0 }) else { return }
        let path = "\(directory.stats)/\(Int(CurrentProcess.id) % 16)"
        // Waiting, the lock is always granted.
        guard let file = try OpenFile.locked(path, waiting: true) else { return }
        let text = try file.readToEnd()
        var totals = Self.values(in: text)
        for position in totals.indices { totals[position] += pending[position] }
        // Written as bytes, a line at a time: string interpolation into one
        // growing `String` was a fifth of a warm hit's own work.
        var shard: [UInt8] = []
        shard.reserveCapacity(text.count + 64)
        for (counter, total) in zip(Counter.allCases, totals) { Self.append(counter, nil, total, to: &shard) }
        if pendingByStorage.isEmpty {
            // Kept as they are, unparsed: a run that asked no remote storage
            // (every warm hit) builds no dictionary.
            Self.forEachLine(of: text) { words in
                if let (counter, storage, value) = Self.storageLine(words, in: text) {
                    Self.append(counter, storage, value, to: &shard)
                }
            }
        } else {
            var byStorage = Self.parseByStorage(text)
            for (storage, counts) in pendingByStorage {
                for (counter, amount) in counts { byStorage[storage, default: [:]][counter, default: 0] += amount }
            }
            for storage in byStorage.keys.sorted() {
                for counter in Counter.allCases {
                    if let amount = byStorage[storage]?[counter] { Self.append(counter, storage, amount, to: &shard) }
                }
            }
        }
        // Rewritten in place under the lock, over the old text (counts only
        // grow, so it is seldom cut): a power loss mid-write can tear this
        // shard, which the parser tolerates (counts off, never a crash).
        try file.overwrite(with: shard, size: text.count)
    }

    /// Appends a shard's line, `COUNTER N` or `COUNTER STORAGE N`.
    private static func append(_ counter: Counter, _ storage: String?, _ value: Int, to shard: inout [UInt8]) {
        shard.append(contentsOf: counter.rawValue.utf8)
        if let storage {
            shard.append(UInt8(ascii: " "))
            shard.append(contentsOf: storage.utf8)
        }
        shard.append(UInt8(ascii: " "))
        shard.append(contentsOf: String(value).utf8)
        shard.append(UInt8(ascii: "\n"))
    }

    /// The directory's remote counters per storage: every shard summed.
    public static func storageTotals(in directory: CacheDirectory) -> [String: [Counter: Int]] {
        var totals: [String: [Counter: Int]] = [:]
        for name in POSIXFile.list(directory.stats) {
            guard let bytes = try? POSIXFile.readShared("\(directory.stats)/\(name)", limit: 1 << 20) else { continue }
            for (storage, counts) in parseByStorage(bytes) {
                for (counter, amount) in counts { totals[storage, default: [:]][counter, default: 0] += amount }
            }
        }
        return totals
    }

    /// The `COUNTER STORAGE N` lines of a shard's text.
    static func parseByStorage(_ bytes: [UInt8]) -> [String: [Counter: Int]] {
        var result: [String: [Counter: Int]] = [:]
        forEachLine(of: bytes) { words in
            if let (counter, storage, value) = storageLine(words, in: bytes) {
                result[storage, default: [:]][counter] = value
            }
        }
        return result
    }

    /// A `COUNTER STORAGE N` line's counter, storage and value.
    private static func storageLine(_ words: LineWords, in bytes: [UInt8]) -> (Counter, String, Int)? {
        guard words.count == 3, let counter = words.counter(0, in: bytes), let value = words.number(2, in: bytes)
        else { return nil }
        return (counter, words.string(1, in: bytes), value)
    }

    /// The directory's totals: every shard summed.
    public static func totals(in directory: CacheDirectory) -> [Counter: Int] {
        var totals: [Counter: Int] = [:]
        for name in POSIXFile.list(directory.stats) {
            guard let bytes = try? POSIXFile.readShared("\(directory.stats)/\(name)", limit: 1 << 20) else { continue }
            for (counter, amount) in parse(bytes) { totals[counter, default: 0] += amount }
        }
        return totals
    }

    /// Counts in a shard's text; lines that do not parse are skipped. Internal
    /// (not private) so the fuzz target reaches it through `@testable import`.
    static func parse(_ bytes: [UInt8]) -> [Counter: Int] {
        var result: [Counter: Int] = [:]
        forEachLine(of: bytes) { words in
            if let (counter, value) = counterLine(words, in: bytes) { result[counter] = value }
        }
        return result
    }

    /// The `COUNTER N` lines of a shard's text by `Counter.allCases` position
    /// (0 where a counter has none).
    private static func values(in bytes: [UInt8]) -> [Int] {
        var result = Array(repeating: 0, count: Counter.allCases.count)
        forEachLine(of: bytes) { words in
            if let (counter, value) = counterLine(words, in: bytes) { result[counter.position] = value }
        }
        return result
    }

    /// Where a line's first three words are in a shard's text, and how many
    /// words it has: a shard's lines have two or three, and a longer one
    /// parses as neither.
    private struct LineWords {
        var count = 0
        private var ranges = (0..<0, 0..<0, 0..<0)

        mutating func append(_ range: Range<Int>) {
            switch count {
            case 0: ranges.0 = range
            case 1: ranges.1 = range
            case 2: ranges.2 = range
            default: break
            }
            count += 1
        }

        /// Word `position` (0, 1 or 2) of the line.
        func string(_ position: Int, in bytes: [UInt8]) -> String {
            String(decoding: bytes[range(position)], as: UTF8.self)
        }

        /// Word `position` as a counter's name.
        func counter(_ position: Int, in bytes: [UInt8]) -> Counter? {
            Counter(named: bytes[range(position)])
        }

        /// Word `position` as a decimal number, as `Int(String)` reads one
        /// (a sign, then digits; nil for anything else or an overflow),
        /// without the string.
        func number(_ position: Int, in bytes: [UInt8]) -> Int? {
            var digits = bytes[range(position)]
            let negative = digits.first == UInt8(ascii: "-")
            if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            guard !digits.isEmpty else { return nil }
            var value = 0
            for byte in digits {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let digit = Int(byte &- UInt8(ascii: "0"))
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) =
                    negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                guard !overflow, !overflowSum else { return nil }
                value = sum
            }
            return value
        }

        private func range(_ position: Int) -> Range<Int> {
            position == 0 ? ranges.0 : position == 1 ? ranges.1 : ranges.2
        }
    }

    /// Calls `body` with the words of each line of a shard's text (lines
    /// split at spaces, empty words and lines left out), by a walk over the
    /// bytes: a warm hit reads a shard, and `split` first builds a table of
    /// the runtime's prespecialized generic types (135 000 instructions,
    /// callgrind); an array of words per line was 40 000 more.
    private static func forEachLine(of bytes: [UInt8], _ body: (LineWords) -> Void) {
        var words = LineWords()
        var start = 0
        for index in 0...bytes.count {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "\n")
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: " ") else { continue }
            if index > start { words.append(start..<index) }
            start = index + 1
            if byte == UInt8(ascii: "\n"), words.count > 0 {
                body(words)
                words = LineWords()
            }
        }
    }

    /// A `COUNTER N` line's counter and value.
    private static func counterLine(_ words: LineWords, in bytes: [UInt8]) -> (Counter, Int)? {
        guard words.count == 2, let counter = words.counter(0, in: bytes), let value = words.number(1, in: bytes)
        else { return nil }
        return (counter, value)
    }
}

extension Statistics.Counter {
    /// `allCases`, made once: the synthesized `allCases` builds its array at each call.
    fileprivate static let ordered = allCases

    /// Where this counter is in `allCases`.
    fileprivate var position: Int { Self.ordered.firstIndex(of: self)! }

    /// The counter named by `name`'s bytes, compared as bytes: `init(rawValue:)`
    /// on a `String` made of them was 960 instructions a line (a warm hit
    /// flushes a shard of 13 lines, callgrind), the string made and then
    /// compared with each name in turn as a `String`.
    fileprivate init?(named name: ArraySlice<UInt8>) {
        for position in Self.names.indices {
            let candidate = Self.names[position]
            if candidate.count == name.count, candidate.elementsEqual(name) {
                self = Self.ordered[position]
                return
            }
        }
        return nil
    }

    /// Each counter's name's bytes, in `allCases` order (a `String`'s
    /// `UTF8View`, compared byte by byte, cost more than the string switch).
    private static let names = ordered.map { Array($0.rawValue.utf8) }
}
