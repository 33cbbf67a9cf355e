// What a URL becomes on its way to a request rather than to a key: the
// form libcurl is sent (`requestForm`, CurlEasyHandle) and what makes it no
// URL at all (`syntaxProblem`, the command line's check of its arguments).
// Apart from the key's normal form (`URLNormalization.swift`) because neither
// changes a key: an escape keeps its case here, where a key upper-cases it.

extension URLNormalization {
    /// `url` as a request sends it: the path and query with what WHATWG
    /// percent-encodes encoded (a space is `%20`, as browsers and wget2
    /// send it; libcurl refuses the raw byte), the fragment dropped, and
    /// every other byte as written (escapes keep their case: a signed URL's
    /// signature covers them). A URL with nothing to encode is returned as it is.
    package static func requestForm(_ url: String) -> String {
        var text = url
        if let hash = text.utf8Index(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        let bytes = Array(text.utf8)
        guard let (_, authority) = parts(bytes), bytes[authority.upperBound...].contains(where: needsEncoding) else {
            return text
        }
        var result = Array(bytes[..<authority.upperBound])
        for byte in bytes[authority.upperBound...] {
            if needsEncoding(byte) {
                result += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0x0F)]
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// What makes `url` no URL WHATWG parsing accepts, in a few words, or nil
    /// if its authority is well formed: a host (an IPv6 literal closed by
    /// `]` and made of hex digits, `:` and `.`; another host free of
    /// forbidden code points) and a port of digits up to 65535. Only
    /// `scheme://authority…` URLs are judged; the scheme is the caller's to check.
    package static func syntaxProblem(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        guard let (_, authority) = parts(bytes) else { return "no scheme://host" }
        var hostAndPort = bytes[authority]
        if let at = hostAndPort.lastIndex(of: UInt8(ascii: "@")) { hostAndPort = hostAndPort[(at + 1)...] }
        var port: ArraySlice<UInt8>?
        if hostAndPort.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else {
                return "no ] after the IPv6 address"
            }
            let address = hostAndPort[(hostAndPort.startIndex + 1)..<close]
            guard address.contains(UInt8(ascii: ":")),
                address.allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else {
                return "not an IPv6 address in [ ]"
            }
            let rest = hostAndPort[(close + 1)...]
            if let first = rest.first {
                guard first == UInt8(ascii: ":") else { return "characters after the IPv6 address" }
                port = rest.dropFirst()
            }
        } else {
            var host = hostAndPort
            if let colon = hostAndPort.lastIndex(of: UInt8(ascii: ":")) {
                host = hostAndPort[..<colon]
                port = hostAndPort[(colon + 1)...]
            }
            guard !host.isEmpty else { return "no host" }
            if host.contains(where: { $0 != UInt8(ascii: "%") && isForbiddenInHost($0) }) {
                return "a character no host may contain"
            }
        }
        if let port, !port.isEmpty {
            let digits = String(decoding: port, as: UTF8.self)
            guard port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(digits.prefix(6)), number <= 65535
            else { return "port '\(digits)' is not a number up to 65535" }
        }
        return nil
    }
}
