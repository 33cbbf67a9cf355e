/// A URL in the form WHATWG URL parsing gives it, as far as a cache key
/// needs it (man page, CACHE KEYS): scheme and host lower-cased, a
/// non-ASCII host in IDNA form (Punycode labels, RFC 3492), the scheme's
/// default port dropped, an empty path made `/`, non-ASCII bytes, controls,
/// spaces, `"`, `<` and `>` in the path and query percent-encoded as UTF-8,
/// every percent-escape's hex digits upper-cased (RFC 3986 §6.2.2), and the
/// path's `.` and `..` segments resolved (`/a/./b/../c` is `/a/c`, as libcurl
/// sends it).
/// `…/café.jpg`, `…/caf%C3%A9.jpg` and `…/caf%c3%a9.jpg` are one resource to
/// every browser, so they are one entry. Unicode case folding beyond
/// `lowercased()` and NFC are not applied to hosts.
///
/// A URL already in this form (any plain ASCII URL a script writes) is
/// returned as it is after one pass over its bytes: the warm hit pays no more.
///
/// This file holds the key's normal form; `URLNormalization+Requests.swift`
/// the forms a request needs (what libcurl is sent, what makes a URL no
/// URL), and `URLNormalization+Bytes.swift` the byte classes and escapes all
/// of them share.
package enum URLNormalization {
    /// `url` (without its fragment) normalised; a URL that is not
    /// `scheme://authority…` is returned unchanged.
    static func normalize(_ url: String) -> String {
        // In place: a native string's bytes are contiguous, and copying them was the fast path's only cost.
        if url.utf8.withContiguousStorageIfAvailable({ bytes in
            parts(bytes).map { isNormal(bytes, schemeEnd: $0.schemeEnd, authority: $0.authority) } ?? true
        }) == true {
            return url
        }
        var bytes = Array(url.utf8)
        // WHATWG's first step: every ASCII tab, LF and CR is removed, wherever it is (a list's stray tab).
        if bytes.contains(where: isTabOrNewline) {
            return normalize(String(decoding: bytes.filter { !isTabOrNewline($0) }, as: UTF8.self))
        }
        guard let (schemeEnd, authority) = parts(bytes) else { return url }
        let (authorityStart, authorityEnd) = (authority.lowerBound, authority.upperBound)
        if isNormal(bytes, schemeEnd: schemeEnd, authority: authority) { return url }

        for index in 0..<schemeEnd { bytes[index] = lowercased(bytes[index]) }
        let scheme = String(decoding: bytes[0..<schemeEnd], as: UTF8.self)
        var result = Array(bytes[0..<authorityStart])
        result += normalizedAuthority(bytes[authorityStart..<authorityEnd], scheme: scheme)
        if authorityEnd == bytes.count || bytes[authorityEnd] != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
        let pathStart = result.count
        appendEncoded(bytes[authorityEnd...], to: &result)
        let path =
            pathStart..<(result[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? result.count)
        result.replaceSubrange(path, with: removingDotSegments(result[path]))
        return String(decoding: result, as: UTF8.self)
    }

    /// Where the scheme ends (its `:`) and the authority lies, in
    /// `scheme://authority/…`; nil for anything else.
    static func parts<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes
    ) -> (schemeEnd: Int, authority: Range<Int>)? where Bytes.Index == Int {
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")), schemeEnd + 2 < bytes.endIndex,
            bytes[schemeEnd + 1] == UInt8(ascii: "/"), bytes[schemeEnd + 2] == UInt8(ascii: "/")
        else { return nil }
        var end = schemeEnd + 3
        while end < bytes.endIndex, !isAuthorityEnd(bytes[end]) { end += 1 }
        return (schemeEnd, (schemeEnd + 3)..<end)
    }

    /// Whether nothing needs changing: a lower-case scheme, an ASCII
    /// authority with no upper-case letter, `%`, user info or default port, a path
    /// without dot segments, and nothing to encode or upper-case after it.
    private static func isNormal<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, schemeEnd: Int, authority: Range<Int>
    ) -> Bool where Bytes.Index == Int {
        guard authority.upperBound < bytes.endIndex, bytes[authority.upperBound] == UInt8(ascii: "/") else {
            return false
        }
        for index in bytes.startIndex..<schemeEnd where isUpper(bytes[index]) { return false }
        for index in authority
        where isUpper(bytes[index]) || bytes[index] >= 0x80 || bytes[index] == UInt8(ascii: "%")
            || bytes[index] == UInt8(ascii: "@")
        {
            return false
        }
        var hostEnd = authority.upperBound
        if let colon = bytes[authority].lastIndex(of: UInt8(ascii: ":")),
            !bytes[authority].contains(UInt8(ascii: "]")) || bytes[colon - 1] == UInt8(ascii: "]")
        {
            hostEnd = colon
        }
        let host = authority.lowerBound..<hostEnd
        if mayBeIPv4(bytes, host: host), let address = ipv4Host(bytes[host]), !address.elementsEqual(bytes[host]) {
            return false
        }
        if bytes[host].first == UInt8(ascii: "["), let address = ipv6Host(bytes[host]),
            !address.elementsEqual(bytes[host])
        {
            return false
        }
        if let port = defaultPort(String(decoding: bytes[bytes.startIndex..<schemeEnd], as: UTF8.self)),
            let colon = bytes[authority].lastIndex(of: UInt8(ascii: ":")),
            !bytes[authority].contains(UInt8(ascii: "]")) || bytes[colon - 1] == UInt8(ascii: "]")
        {
            let digits = bytes[(colon + 1)..<authority.upperBound]
            if digits.isEmpty || digits.first == UInt8(ascii: "0") || String(decoding: digits, as: UTF8.self) == port {
                return false
            }
        }
        var index = authority.upperBound
        var inPath = true
        while index < bytes.endIndex {
            let byte = bytes[index]
            if needsEncoding(byte) { return false }
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { inPath = false }
            if inPath, byte == UInt8(ascii: "/"), dots(inSegmentOf: bytes, at: index + 1) != nil { return false }
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                isLowerHex(bytes[index + 1]) || isLowerHex(bytes[index + 2])
            {
                return false
            }
            index += 1
        }
        return true
    }

    /// `host:port` with the host lower-cased (IDNA for a non-ASCII one,
    /// after percent-decoding) and a default or empty port dropped. A
    /// `user:password@` is left out: it is the request's credentials
    /// (`URLUserInfo`), never a part of the key or of what the cache keeps.
    private static func normalizedAuthority(_ authority: ArraySlice<UInt8>, scheme: String) -> [UInt8] {
        var hostAndPort = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            hostAndPort = authority[(at + 1)...]
        }
        var host = hostAndPort
        var port: ArraySlice<UInt8> = []
        if let colon = hostAndPort.lastIndex(of: UInt8(ascii: ":")),
            !hostAndPort.contains(UInt8(ascii: "]")) || hostAndPort[colon - 1] == UInt8(ascii: "]")
        {
            host = hostAndPort[..<colon]
            port = hostAndPort[(colon + 1)...]
        }
        var result = normalizedHost(host)
        let digits = port.drop { $0 == UInt8(ascii: "0") }
        let number = digits.isEmpty && !port.isEmpty ? "0" : String(decoding: digits, as: UTF8.self)
        if !port.isEmpty, number != defaultPort(scheme) {
            result.append(UInt8(ascii: ":"))
            result += Array(number.utf8)
        }
        return result
    }

    /// A host lower-cased; a non-ASCII one in IDNA form, label by label; an
    /// IPv4 address in dotted-decimal form (`ipv4Host`), an IPv6 one as
    /// WHATWG writes it (`ipv6Host`). Escapes are
    /// decoded, unless that yields a byte WHATWG forbids in a host (`%23`
    /// would put a `#` in the key): such a URL is not valid, and its host
    /// stays as written.
    private static func normalizedHost(_ host: ArraySlice<UInt8>) -> [UInt8] {
        var decoded = Array(host)
        if host.contains(UInt8(ascii: "%")) {
            decoded = PercentDecoding.decoded(host)
            if decoded.contains(where: isForbiddenInHost) { return host.map(lowercased) }
        }
        guard decoded.contains(where: { $0 >= 0x80 }) else {
            let lowered = decoded.map(lowercased)
            if lowered.first == UInt8(ascii: "[") { return ipv6Host(lowered) ?? lowered }
            return mayBeIPv4(lowered, host: lowered.indices) ? ipv4Host(lowered) ?? lowered : lowered
        }
        let text = String(decoding: decoded, as: UTF8.self).lowercased()
        let labels = text.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.unicodeScalars.contains(where: { !$0.isASCII }) else { return String(label) }
            return "xn--" + Punycode.encode(Array(label.unicodeScalars))
        }
        return Array(labels.joined(separator: ".").utf8)
    }

    /// The path and query with what WHATWG percent-encodes encoded, and
    /// every escape upper-cased.
    private static func appendEncoded(_ rest: ArraySlice<UInt8>, to result: inout [UInt8]) {
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = rest[index]
            if needsEncoding(byte) {
                result += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0x0F)]
            } else if byte == UInt8(ascii: "%"), index + 2 < rest.endIndex, isHex(rest[index + 1]),
                isHex(rest[index + 2])
            {
                result += [byte, uppercased(rest[index + 1]), uppercased(rest[index + 2])]
                index += 2
            } else {
                result.append(byte)
            }
            index += 1
        }
    }

    /// A path (from its leading `/`) with `.` and `..` segments resolved as
    /// WHATWG does: `.` goes, `..` goes with the segment before it, and one
    /// of them last leaves the path ending in `/`.
    private static func removingDotSegments(_ path: ArraySlice<UInt8>) -> [UInt8] {
        guard path.first == UInt8(ascii: "/") else { return Array(path) }
        let segments = path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var kept: [ArraySlice<UInt8>] = []
        for (index, segment) in segments.enumerated() {
            let dots = dots(inSegmentOf: segment, at: segment.startIndex)
            if dots == 2, !kept.isEmpty { kept.removeLast() }
            if dots == nil { kept.append(segment) } else if index == segments.count - 1 { kept.append([]) }
        }
        return [UInt8(ascii: "/")] + Array(kept.joined(separator: [UInt8(ascii: "/")]))
    }

    /// 1 or 2 if the path segment starting at `start` is `.` or `..` (a dot
    /// may be written `%2e`), else nil.
    private static func dots<Bytes: RandomAccessCollection<UInt8>>(inSegmentOf bytes: Bytes, at start: Int) -> Int?
    where Bytes.Index == Int {
        var count = 0
        var index = start
        while index < bytes.endIndex, count <= 2 {
            if bytes[index] == UInt8(ascii: ".") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                bytes[index + 1] == UInt8(ascii: "2"),
                bytes[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                break
            }
            count += 1
        }
        let ends =
            index == bytes.endIndex || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
            || bytes[index] == UInt8(ascii: "#")
        return ends && (1...2).contains(count) ? count : nil
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
    private static func lowercased(_ byte: UInt8) -> UInt8 { isUpper(byte) ? byte + 0x20 : byte }
    private static func uppercased(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }
    private static func isLowerHex(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x66 }
}
