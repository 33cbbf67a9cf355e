/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// The months' three letters as one number each, for `parseFixdate`
    /// to compare without an array per month (5 k instructions a date).
    private static let monthCodes: [UInt32] = months.map { $0.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    /// Seconds since 1970 for an HTTP date; nil if it is not one.
    package static func parse(_ text: String) -> Double? {
        if let seconds = parseFixdate(text) { return seconds }
        let words = text.split { $0 == " " || $0 == "," || $0 == "-" }.map { $0.lowercased() }
        // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" and RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
        // become [weekday, day, month, year, time, gmt]; asctime "Sun Nov  6 08:49:37 1994"
        // becomes [weekday, month, day, time, year].
        var day: Int?, month: Int?, year: Int?, time: String?
        if words.count == 6, words[5] == "gmt" {
            (day, month, year, time) = (Int(words[1]), months.firstIndex(of: words[2]), Int(words[3]), words[4])
            // Only a two-digit year is RFC 850's; "0019" is the year 19.
            if let y = year, words[3].count == 2 { year = y + (y < 70 ? 2000 : 1900) }
        } else if words.count == 5 {
            (day, month, year, time) = (Int(words[2]), months.firstIndex(of: words[1]), Int(words[4]), words[3])
        }
        guard let day, let month, let year, let time else { return nil }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        // Four-digit years only: a larger one overflowed the day count.
        guard clock.count == 3, (1...31).contains(day), (1...9999).contains(year), clock[0] < 24, clock[1] < 60,
            clock[2] < 61
        else { return nil }
        return Double(
            daysSinceEpoch(year: year, month: month + 1, day: day) * 86400
                + clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    /// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", what servers send)
    /// read from its bytes in place; nil for anything else, which `parse`
    /// reads word by word. Splitting and lower-casing words cost 13 k
    /// instructions a date, and a cold download parses two (Date and
    /// Last-Modified). Whatever this accepts, the word reader reads alike.
    private static func parseFixdate(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes -> Double? in
            guard bytes.count == 29 else { return nil }
            func isLetter(_ byte: UInt8) -> Bool {
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            let separators: [(Int, UInt8)] = [
                (3, UInt8(ascii: ",")), (4, UInt8(ascii: " ")), (7, UInt8(ascii: " ")), (11, UInt8(ascii: " ")),
                (16, UInt8(ascii: " ")), (19, UInt8(ascii: ":")), (22, UInt8(ascii: ":")), (25, UInt8(ascii: " ")),
                (26, UInt8(ascii: "G")), (27, UInt8(ascii: "M")), (28, UInt8(ascii: "T")),
            ]
            guard separators.allSatisfy({ bytes[$0.0] == $0.1 }), (0..<3).allSatisfy({ isLetter(bytes[$0]) }),
                (8..<11).allSatisfy({ isLetter(bytes[$0]) })
            else { return nil }
            let name = UInt32(bytes[8] | 0x20) << 16 | UInt32(bytes[9] | 0x20) << 8 | UInt32(bytes[10] | 0x20)
            guard
                let month = monthCodes.firstIndex(of: name),
                let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
                let minute = number(20..<22), let second = number(23..<25),
                (1...31).contains(day), year >= 1, hour < 24, minute < 60, second < 61
            else { return nil }
            return Double(
                daysSinceEpoch(year: year, month: month + 1, day: day) * 86400 + hour * 3600 + minute * 60 + second)
        }
    }

    /// Formats seconds since 1970 as an IMF-fixdate.
    package static func format(_ seconds: Double) -> String {
        let seconds = clamped(seconds)
        let (date, secondsOfDay) = civil(seconds)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let days = Int((seconds / 86400).rounded(.down))
        let weekday = weekdays[((days % 7) + 7) % 7]
        let month = months[date.month - 1].prefix(1).uppercased() + months[date.month - 1].dropFirst()
        // IMF-fixdate's year is four digits: year 19 printed as "19" read back as 2019 (found by fuzzing).
        let year = String(date.year)
        return
            "\(weekday), \(pad(date.day)) \(month) \(String(repeating: "0", count: max(0, 4 - year.count)) + year) \(pad(secondsOfDay / 3600)):\(pad(secondsOfDay / 60 % 60)):\(pad(secondsOfDay % 60)) GMT"
    }

    /// Formats seconds since 1970 as ISO 8601 in UTC, e.g. "2026-11-22T10:15:00Z".
    package static func iso8601(_ seconds: Double) -> String {
        let (date, secondsOfDay) = civil(seconds)
        let year = String(date.year)
        return
            "\(year)-\(pad(date.month))-\(pad(date.day))T\(pad(secondsOfDay / 3600)):\(pad(secondsOfDay / 60 % 60)):\(pad(secondsOfDay % 60))Z"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// `seconds` within years 0…9999. A deadline can be absurd (`max-age=1e300`
    /// or `inf` is stored as is) and must print as a far date, not trap
    /// converting to Int.
    private static func clamped(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : min(max(seconds, -62_167_219_200), 253_402_300_799)
    }

    private static func civil(_ seconds: Double) -> ((year: Int, month: Int, day: Int), Int) {
        let whole = Int(clamped(seconds).rounded(.down))
        let days = Int((Double(whole) / 86400).rounded(.down))
        return (civilFromDays(days), whole - days * 86400)
    }

    // Howard Hinnant's days_from_civil / civil_from_days algorithms.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
