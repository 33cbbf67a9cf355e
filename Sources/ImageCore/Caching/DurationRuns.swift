/// An animation's frame durations as an entry's record keeps them (its
/// `delays` line): runs of equal values, `100*12,50,100*3`, since most
/// animations repeat one delay and a record must fit an extended attribute.
enum DurationRuns {
    /// The longest text kept: an animation whose runs are longer (hundreds
    /// of frames of differing delays) keeps none, so that its record still
    /// fits an ext4 attribute with a URL of 3 KB; `--json` then leaves
    /// `delays_ms` out, as for an entry stored before delays were kept.
    static let longestText = 512

    /// `durations` as runs; nil when empty or longer than `longestText`.
    static func text(_ durations: [Int]) -> String? {
        guard var current = durations.first else { return nil }
        var parts: [String] = []
        var count = 0
        func close() { parts.append(count == 1 ? String(current) : "\(current)*\(count)") }
        for duration in durations {
            if duration == current {
                count += 1
            } else {
                close()
                (current, count) = (duration, 1)
            }
        }
        close()
        let text = parts.joined(separator: ",")
        return text.utf8.count <= longestText ? text : nil
    }

    /// The durations `text` holds, if they are exactly `frames` values
    /// (never more: a damaged count cannot make a large array); else nil.
    static func durations(_ text: String, frames: Int) -> [Int]? {
        // A remote store's record is read too: its frame count is not trusted with memory.
        guard frames <= 1 << 20 else { return nil }
        var durations: [Int] = []
        // Each `VALUE` or `VALUE*COUNT` between commas, as slices of the
        // text: `split` made an array of substrings per part, half of reading
        // an animation's record on a warm hit (33 k instructions, callgrind).
        var rest = Substring(text)
        while true {
            let comma = rest.firstIndex(of: ",")
            let part = rest[..<(comma ?? rest.endIndex)]
            let star = part.firstIndex(of: "*")
            let countText = star.map { part[part.index(after: $0)...] }
            guard countText?.contains("*") != true, let value = Int(part[..<(star ?? part.endIndex)]), value >= 0
            else { return nil }
            let count = countText.map { Int($0) } ?? 1
            guard let count, count > 0, count <= frames - durations.count else { return nil }
            durations.append(contentsOf: repeatElement(value, count: count))
            guard let comma else { break }
            rest = rest[rest.index(after: comma)...]
        }
        return durations.count == frames ? durations : nil
    }
}
