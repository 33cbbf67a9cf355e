/// How many new requests one host may receive per second or per minute
/// (`--rate 4/s`, `--rate 30/m`): starts are spaced evenly, one every
/// `interval` seconds, as curl's `--rate` does, so a server never sees a burst.
public struct RequestRate: Sendable, Equatable, CustomStringConvertible {
    /// Requests per `period`.
    public var count: Int
    /// The period in seconds: 1 or 60.
    public var period: Double

    /// `count` requests per `period` seconds.
    public init(count: Int, period: Double) {
        self.count = count
        self.period = period
    }

    /// Parses "N/s" or "N/m" (also "N/second", "N/minute", "N/sec", "N/min");
    /// nil if malformed or N is not positive.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0].trimmingSpaces()), count > 0 else { return nil }
        switch parts[1].trimmingSpaces().lowercased() {
        case "s", "sec", "second": period = 1
        case "m", "min", "minute": period = 60
        default: return nil
        }
        self.count = count
    }

    /// Seconds between two starts to one host.
    public var interval: Double { period / Double(count) }

    public var description: String { "\(count)/\(period == 1 ? "s" : "m")" }
}
