/// The body of a download lease in an HTTP store. Such a store expires
/// nothing, so the lease says itself when it runs out (wall-clock time:
/// the fleet's clocks are assumed to agree within a second, as NTP keeps
/// them) and for how long it was taken, which caps what a waiter believes
/// is left of it whatever the clocks say.
///
///     imgcache-lease 1
///     token <holder's token>
///     expires <Unix time, ms>
///     duration <ms>
struct HTTPLeaseObject {
    var token: String
    /// When it runs out unless renewed (seconds since 1970).
    var expiry: Double
    /// How long it was taken or last renewed for (seconds).
    var duration: Double

    private static let magic = "imgcache-lease 1"

    /// A lease taken or renewed now for `duration` seconds.
    init(token: String, duration: Double, now: Double) {
        self.token = token
        self.expiry = now + duration
        self.duration = duration
    }

    /// The longest lease believed: a damaged or hostile object claiming
    /// more must not keep a fleet waiting (`|lease=` is milliseconds; a day
    /// is far past any download).
    static let longestDuration = 86_400.0

    /// The lease in `body`; nil if it is not one (a waiter treats that as
    /// run out: it is nobody's lease).
    init?(parsing body: [UInt8]) {
        let lines = String(decoding: body.prefix(512), as: UTF8.self).split(separator: "\n")
        guard lines.first == Substring(Self.magic) else { return nil }
        var fields: [Substring: Substring] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let token = fields["token"], let expires = fields["expires"].flatMap({ Double($0) }),
            expires.isFinite, let duration = fields["duration"].flatMap({ Double($0) }),
            duration > 0, duration / 1000 <= Self.longestDuration
        else { return nil }
        self.token = String(token)
        self.expiry = expires / 1000
        self.duration = duration / 1000
    }

    var encoded: [UInt8] {
        Array(
            "\(Self.magic)\ntoken \(token)\nexpires \(Int((expiry * 1000).rounded()))\nduration \(Int((duration * 1000).rounded()))\n"
                .utf8)
    }

    /// Seconds left at `now`: never more than the lease was taken for, so a
    /// holder whose clock runs ahead cannot keep others waiting longer.
    func remaining(now: Double) -> Double {
        min(expiry - now, duration)
    }
}
