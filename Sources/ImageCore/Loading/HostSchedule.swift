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
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        return host.contains(where: \.isUppercase) ? Substring(host.lowercased()) : host
    }
}
