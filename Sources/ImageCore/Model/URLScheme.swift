/// A URL's scheme, judged on its bytes.
enum URLScheme {
    /// Whether `url` starts with `scheme` (lowercase, with its `://`), in any
    /// case, and goes on after it. Compared as bytes: `prefix(n).lowercased()`
    /// walked graphemes and made two strings, 1 k instructions for each of a
    /// cold URL's looks (its S3 check, its transfer's https check).
    static func starts(_ url: String, with scheme: StaticString) -> Bool {
        var utf8 = url.utf8.makeIterator()
        for index in 0..<scheme.utf8CodeUnitCount {
            guard let byte = utf8.next(),
                (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == scheme.utf8Start[index]
            else { return false }
        }
        return utf8.next() != nil
    }
}
