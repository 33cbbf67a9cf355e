/// When the loop may start the next request to each host: `--rate` spaces
/// a host's paced requests evenly, and a 429 or 503 with Retry-After pauses
/// every request to that host (other hosts go on). Used on the loop thread only.
struct HostSchedule {
    private struct Host {
        /// Monotonic time before which no paced request starts (`--rate`).
        var nextStart = 0.0
        /// Monotonic time before which no request starts (Retry-After).
        var pausedUntil = 0.0
    }

    private var hosts: [Substring: Host] = [:]
    let rate: RequestRate?

    init(rate: RequestRate?) {
        self.rate = rate
    }

    /// Whether no host has a rule yet: every request may start.
    var isIdle: Bool { hosts.isEmpty }

    /// The monotonic time from which a request to `host` may start.
    func earliestStart(_ host: Substring, paced: Bool) -> Double {
        guard let state = hosts[host] else { return 0 }
        return max(state.pausedUntil, paced ? state.nextStart : 0)
    }

    /// A request to `host` starts now: the next paced one waits `rate.interval`.
    mutating func started(_ host: Substring, paced: Bool, now: Double) {
        guard paced, let rate else { return }
        hosts[host, default: Host()].nextStart = now + rate.interval
    }

    /// Holds every request to `host` until `until`.
    mutating func pause(_ host: Substring, until: Double) {
        hosts[host, default: Host()].pausedUntil = max(hosts[host]?.pausedUntil ?? 0, until)
        forgetPast(before: until - 3600)
    }

    /// Drops hosts whose times have passed long ago, so a list of many hosts
    /// does not keep an entry per host it ever paused.
    private mutating func forgetPast(before time: Double) {
        guard hosts.count > 1024 else { return }
        hosts = hosts.filter { $0.value.nextStart > time || $0.value.pausedUntil > time }
    }

    /// "host[:port]" of an http(s) URL, lower-cased, without user info: the
    /// unit a server's limits apply to.
    static func host(of url: String) -> Substring {
        // Over the UTF-8 bytes: every delimiter is ASCII. Character-wise
        // (`firstRange(of:)`, `isUppercase`) this took 51 k instructions per
        // URL of a cold batch, a quarter of curl's whole cost per URL; over
        // the view's indices, 1.5 k; as offsets into its contiguous bytes, a fifth of that.
        let found = url.utf8.withContiguousStorageIfAvailable { bytes in
            Self.hostBounds(bytes)
        }
        let bounds = found ?? Array(url.utf8).withUnsafeBufferPointer(Self.hostBounds)
        let utf8 = url.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: bounds.start)
        let host = url[start..<utf8.index(utf8.startIndex, offsetBy: bounds.end)]
        let ascii = bounds.ascii
        let hasUppercase =
            ascii
            ? host.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            : host.contains(where: \.isUppercase)
        return hasUppercase ? Substring(host.lowercased()) : host
    }

    /// Where `host(of:)`'s host starts and ends in a URL's bytes (after
    /// "://" and any user info, up to the path, query or fragment), and whether it is ASCII.
    private static func hostBounds(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, end: Int, ascii: Bool) {
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":"), bytes.endIndex - index >= 3,
                bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
            {
                start = index + 3
                break
            }
            index += 1
        }
        var end = start
        var hostStart = start
        var ascii = true
        while end < bytes.endIndex {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = end + 1 }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        return (hostStart, end, ascii)
    }
}
