/// The Cache-Control directives a private cache acts on (RFC 9111 §5.2.2,
/// RFC 5861, RFC 8246). Unknown directives are ignored, as the RFC asks.
public struct CacheControl: Sendable, Equatable {
    /// `max-age`, in seconds.
    public var maxAge: Double?
    /// `no-cache`: store, but revalidate before every use.
    public var noCache = false
    /// `no-store`: do not store at all.
    public var noStore = false
    /// `must-revalidate`: never use stale, even offline or on error.
    public var mustRevalidate = false
    /// `immutable`: do not revalidate while fresh, even on `--refresh`.
    public var immutable = false
    /// `stale-while-revalidate`, in seconds past freshness.
    public var staleWhileRevalidate: Double?
    /// `stale-if-error`, in seconds past freshness.
    public var staleIfError: Double?

    /// Parses a Cache-Control header value (several headers joined by
    /// commas). Works on the bytes: every warm hit parses its entry's stored
    /// header, and splitting it as Unicode text was a tenth of a warm
    /// `prefetch`. Directive names are ASCII and matched without case;
    /// white space around them and their values is spaces and tabs (OWS).
    public init(_ header: String?) {
        guard var text = header else { return }
        text.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
                apply(Self.trimmed(bytes[start..<end]))
                start = end + 1
            }
        }
    }

    /// One directive, `name` or `name=value`.
    private mutating func apply(_ directive: Slice<UnsafeBufferPointer<UInt8>>) {
        let equals = directive.firstIndex(of: UInt8(ascii: "="))
        // A bare "=" names no directive (found by fuzzing).
        let name = Self.trimmed(directive[..<(equals ?? directive.endIndex)])
        guard !name.isEmpty else { return }
        let seconds = equals.flatMap { Self.seconds(directive[($0 + 1)...]) }
        if Self.named(name, "max-age") {
            maxAge = maxAge ?? seconds
        } else if Self.named(name, "no-cache") {
            noCache = true
        } else if Self.named(name, "no-store") {
            noStore = true
        } else if Self.named(name, "must-revalidate") || Self.named(name, "proxy-revalidate") {
            mustRevalidate = true
        } else if Self.named(name, "immutable") {
            immutable = true
        } else if Self.named(name, "stale-while-revalidate") {
            staleWhileRevalidate = seconds
        } else if Self.named(name, "stale-if-error") {
            staleIfError = seconds
        }
    }

    /// A directive's value in seconds, quotes dropped; negative ones are 0.
    private static func seconds(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        // Plain digits (what servers send) are read in place, exactly as
        // Double(String) reads them; anything else goes the long way (a
        // String and strtod: 1.5 k instructions a directive).
        let value = trimmed(value)
        if (1...15).contains(value.count) {
            var number = 0
            var plain = true
            for byte in value {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else {
                    plain = false
                    break
                }
                number = number * 10 + Int(digit)
            }
            if plain { return Double(number) }
        }
        let digits = value.filter { $0 != UInt8(ascii: "\"") }
        return Double(String(decoding: digits, as: UTF8.self)).map { max(0, $0) }
    }

    /// Whether `name` is `directive`, ignoring ASCII case.
    private static func named(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ directive: StaticString) -> Bool {
        guard name.count == directive.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: directive.utf8Start, count: directive.utf8CodeUnitCount)
        return zip(name, expected).allSatisfy { byte, wanted in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == wanted
        }
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }
}
