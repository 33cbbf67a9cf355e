/// The run's `--limit-rate`: a token bucket every paced transfer draws its
/// bytes from. A transfer that overdraws it pauses (`curl_easy_pause` from
/// its write callback) until the bucket is back to zero; the loop resumes it.
/// Own pacing, because libcurl's `CURLOPT_MAX_RECV_SPEED_LARGE` limits each
/// transfer alone and let small bodies through at full speed. Used on the
/// loop thread only.
final class BandwidthBudget {
    /// Bytes per second.
    let rate: Double
    /// Bytes that may be received now; negative while overdrawn.
    private var tokens = 0.0
    private var refilledAt: Double
    /// Most bytes saved up while transfers are idle: a quarter second's worth.
    private let burst: Double

    init(bytesPerSecond: Int, now: Double) {
        rate = Double(max(1, bytesPerSecond))
        burst = rate / 4
        refilledAt = now
    }

    private func refill(_ now: Double) {
        tokens = min(burst, tokens + (now - refilledAt) * rate)
        refilledAt = now
    }

    /// Takes `count` received bytes; returns whether the budget is overdrawn
    /// (the transfer should pause).
    func take(_ count: Int, now: Double) -> Bool {
        refill(now)
        tokens -= Double(count)
        return tokens < 0
    }

    /// Seconds until paused transfers may go on (0: now).
    func secondsUntilAvailable(now: Double) -> Double {
        refill(now)
        return tokens >= 0 ? 0 : -tokens / rate
    }
}
