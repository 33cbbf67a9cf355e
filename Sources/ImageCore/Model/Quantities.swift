/// Parsing of the size and duration notations the command line and
/// `imgcache.conf` share: sizes in B, K/KB/KiB, M, G (binary multiples),
/// durations in s, m, h, d, w.
package enum Quantities {
    /// Bytes for "64M", "512K", "1G", "100" (bytes). Nil if malformed.
    package static func parseSize(_ text: String) -> Int? {
        parseScaled(text, multipliers: sizeUnits)
    }

    /// A cache's size limit as `max-size` takes it in `imgcache.conf` and
    /// `clean --max-size`: a size, or `none` or a size of 0 for no limit,
    /// which is `.some(nil)`. Nil if malformed. Why 0 is none: the file
    /// always read it so, and a limit of 0 bytes would remove every entry,
    /// which is `purge --all`'s job, not a typo's.
    package static func parseSizeLimit(_ text: String) -> Int?? {
        if text == "none" { return .some(nil) }
        guard let bytes = parseSize(text) else { return nil }
        return .some(bytes == 0 ? nil : bytes)
    }

    /// Binary multiples by unit, lowercased.
    private static let sizeUnits: [Substring: Double] = {
        var units: [Substring: Double] = ["": 1, "b": 1]
        for (index, letter) in ["k", "m", "g", "t"].enumerated() {
            let multiplier = Double(1 << (10 * (index + 1)))
            for unit in [letter, letter + "b", letter + "ib"] { units[Substring(unit)] = multiplier }
        }
        return units
    }()

    /// A count for "100M", "2G", "1.5K", "5000" (decimal multiples: pixel
    /// counts, not bytes). Nil if malformed.
    package static func parseCount(_ text: String) -> Int? {
        parseScaled(text, multipliers: ["": 1, "k": 1e3, "m": 1e6, "g": 1e9])
    }

    /// A non-negative number followed by a unit of `multipliers` (keys
    /// lowercased), as a whole number within Int's range. Nil if malformed.
    private static func parseScaled(_ text: String, multipliers: [Substring: Double]) -> Int? {
        let (number, unit) = split(text)
        guard let value = Double(number), value >= 0, value.isFinite,
            let multiplier = multipliers[Substring(unit.lowercased())]
        else { return nil }
        let scaled = value * multiplier
        return scaled < Double(Int.max) ? Int(scaled) : nil
    }

    /// Seconds for "90s", "15m", "12h", "7d", "2w", or a bare number of seconds. Nil if malformed.
    package static func parseDuration(_ text: String) -> Double? {
        let (number, unit) = split(text)
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        switch unit.lowercased() {
        case "", "s": return value
        case "m": return value * 60
        case "h": return value * 3600
        case "d": return value * 86400
        case "w": return value * 604_800
        default: return nil
        }
    }

    /// "1.5 MiB"-style text for people.
    package static func formatSize(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded) \(units[unit])"
    }

    /// "7d", "12h", "90s"-style text: the largest unit up to days that divides evenly.
    package static func formatDuration(_ seconds: Double) -> String {
        // Not Int(seconds): "max-age = 100000000000000000000" in imgcache.conf
        // is a valid duration past Int's range, and `stat` prints it.
        guard let whole = Int(exactly: seconds) else { return "\(seconds)s" }
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where whole >= size && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }

    private static func split(_ text: String) -> (Substring, Substring) {
        let trimmed = text.trimmingSpaces()
        let end = trimmed.firstIndex { !($0.isNumber || $0 == ".") } ?? trimmed.endIndex
        return (trimmed[..<end], trimmed[end...].trimmingSpaces())
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (spaces, tabs,
    /// "\r", line breaks): one trimming for header values, settings lines,
    /// quantities and URL lists.
    func trimmingSpaces() -> Substring {
        // Most values start and end with a visible ASCII byte: nothing to trim,
        // and no Unicode property to look up.
        if let first = first?.asciiValue, let last = last?.asciiValue, (0x21..<0x7F).contains(first),
            (0x21..<0x7F).contains(last)
        {
            return Substring(self)
        }
        // Character.isWhitespace also covers "\r\n", which is one Character.
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return Substring() }
        let last = lastIndex(where: { !isSpace($0) })!
        return Substring(self[first...last])
    }
}
