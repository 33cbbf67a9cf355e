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
        // As the key drops them (WHATWG's first step), the request does: `a<TAB>b.jpg` is `ab.jpg`, not `a%09b.jpg`.
        var text =
            url.utf8.contains(where: isTabOrNewline)
            ? String(decoding: url.utf8.filter { !isTabOrNewline($0) }, as: UTF8.self) : url
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

    /// Why `url` is no URL imgcache fetches, in a few words, or nil: it is
    /// an `s3://BUCKET/KEY`, or an http or https URL `syntaxProblem`
    /// passes. `fetch`, `stat` and `purge` refuse such an argument (exit 64),
    /// and `prefetch` such a line, in the same words and of the same kind.
    package static func refusal(of url: String) -> String? {
        if url.utf8.withContiguousStorageIfAvailable(isPlainHTTP) == true { return nil }
        let utf8 = url.utf8
        let http = utf8.count > 8 && (utf8.starts(with: "http://".utf8) || utf8.starts(with: "https://".utf8))
        if !http {
            if S3ObjectURL(url).map({ !$0.key.isEmpty }) == true { return nil }
            let lowered = url.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.count > 8 else {
                return "not an http or https URL (nor s3://BUCKET/KEY)"
            }
        }
        return syntaxProblem(url).map { "not a valid URL: \($0)" }
    }

    /// Whether `bytes` is `http://` or `https://`, then a host of ASCII
    /// letters, digits, `.` and `-`, and perhaps a port up to 65535: what a
    /// list holds line after line, passed without `syntaxProblem`'s copy of
    /// the URL (which cost `prefetch` 2.9 k instructions a line, callgrind).
    private static func isPlainHTTP(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index: Int
        if bytes.starts(with: "http://".utf8) {
            index = 7
        } else if bytes.starts(with: "https://".utf8) {
            index = 8
        } else {
            return false
        }
        let hostStart = index
        var port: Int?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if let value = port {
                guard byte >= 0x30 && byte <= 0x39, value <= 6553 else { return false }
                port = value * 10 + Int(byte - 0x30)
            } else if byte == UInt8(ascii: ":") {
                guard index > hostStart else { return false }
                port = 0
            } else {
                let letter = byte | 0x20
                guard
                    (letter >= 0x61 && letter <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
                else { return false }
            }
            index += 1
        }
        return index > hostStart && (port ?? 0) <= 65535
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
