import Synchronization

/// What this machine has seen of the leases other machines hold in a store
/// whose leases carry their own expiry (HTTP, S3): each lease's version (its
/// token and expiry, which every renewal moves) and since when, on this
/// machine's monotonic clock. A holder renews its lease every third of its
/// duration, so a version seen unchanged for a whole duration is a dead
/// holder's, whatever the expiry written in it says.
///
/// Why: the expiry is the holder's wall clock. One that ran minutes ahead
/// (S3 still signs within 15) wrote an expiry minutes away, which a waiter
/// reads as a whole lease left (`HTTPLeaseObject.remaining` caps it at the
/// duration) at every poll: when such a holder died, the others waited those
/// minutes instead of at most a duration.
///
/// Thread safety: every method may be called from any task concurrently.
final class LeaseSightings: Sendable {
    private let seen = Mutex<[String: (token: String, expiry: Double, since: Double)]>([:])

    /// Seconds left of `lease`, held by another machine under `name`, at
    /// `now` (monotonic): its `remaining` at wall time `wallNow`, but never
    /// more than its duration less the time this version has been seen.
    func timeLeft(_ name: String, _ lease: HTTPLeaseObject, wallNow: Double, now: Double) -> Double {
        let since = seen.withLock { seen in
            if let sighting = seen[name], sighting.token == lease.token, sighting.expiry == lease.expiry {
                return sighting.since
            }
            seen[name] = (lease.token, lease.expiry, now)
            return now
        }
        return min(lease.remaining(now: wallNow), lease.duration - (now - since))
    }

    /// Forgets `name`'s lease (taken over, or gone).
    func forget(_ name: String) {
        seen.withLock { _ = $0.removeValue(forKey: name) }
    }
}
