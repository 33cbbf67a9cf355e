/// Hosts that are IPv4 addresses, in the one form WHATWG's host parser gives
/// them: `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, `2130706433` and `127.0.0.1.`
/// are all `127.0.0.1`, to every browser and to libcurl, which connects to
/// the same address for each. So they are one entry, as `…/café.jpg` and
/// `…/caf%C3%A9.jpg` are.
extension URLNormalization {
    /// `host` (lower-cased, ASCII) in dotted-decimal form if it ends in a
    /// number as WHATWG says (its last label, a trailing dot aside, is all
    /// digits or an IPv4 number: `0x1f`), and parses as an IPv4 address;
    /// nil otherwise: a domain, or a host WHATWG refuses (`1.2.3.256`,
    /// `a.1`), which stays as written, since no request follows it anyway.
    static func ipv4Host<Bytes: Collection<UInt8>>(_ host: Bytes) -> [UInt8]? {
        var parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard let last = parts.last, !last.isEmpty, last.allSatisfy(isDigit) || ipv4Number(last) != nil,
            parts.count <= 4
        else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), numbers[numbers.count - 1] < 1 << (8 * (5 - numbers.count))
        else { return nil }
        var address = numbers[numbers.count - 1]
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * (3 - index)) }
        let octets = [address >> 24, (address >> 16) & 0xFF, (address >> 8) & 0xFF, address & 0xFF]
        return Array(octets.map(String.init).joined(separator: ".").utf8)
    }

    /// Whether the host in `bytes[host]` may be an IPv4 address not in its
    /// dotted-decimal form: its last label (a trailing dot aside) starts with
    /// a digit, and it is not already four decimal numbers of 0 to 255
    /// without leading zeros. Only then does `isNormal` pay for `ipv4Host`,
    /// which costs a warm hit on `127.0.0.1` 210 k instructions (callgrind).
    static func mayBeIPv4<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, host: Range<Int>) -> Bool
    where Bytes.Index == Int {
        var end = host.upperBound
        if end > host.lowerBound, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        var start = end
        while start > host.lowerBound, bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
        return start < end && isDigit(bytes[start]) && !isDottedDecimal(bytes, host: host)
    }

    /// Whether `bytes[host]` is an IPv4 address as `ipv4Host` writes it.
    private static func isDottedDecimal<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, host: Range<Int>
    )
        -> Bool
    where Bytes.Index == Int {
        var (labels, digits, value) = (1, 0, 0)
        for index in host {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                (labels, digits, value) = (labels + 1, 0, 0)
            } else {
                guard isDigit(byte), !(digits == 1 && value == 0) else { return false }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return false }
            }
        }
        return labels == 4 && digits > 0
    }

    /// WHATWG's IPv4 number parser: `0x` (or `0X`) then hex digits, `0` then
    /// octal digits, or decimal digits; `0x` alone is 0. Nil if malformed
    /// or past 2^32 (no address has such a part).
    private static func ipv4Number<Part: Collection<UInt8>>(_ part: Part) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = Substring(decoding: part, as: UTF8.self).utf8[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
            digits.dropFirst().first.map({ $0 | 0x20 == UInt8(ascii: "x") }) == true
        {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = value * radix + digit
            guard value <= 1 << 32 else { return nil }
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
