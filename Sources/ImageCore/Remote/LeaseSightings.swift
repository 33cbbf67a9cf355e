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
    private let rounds = Mutex<[String: (token: String, round: Int, since: Double)]>([:])

    /// Seconds left of `lease`, held by another machine under `name`, at
    /// `now` (monotonic): its `remaining` at wall time `wallNow`, but never
    /// more than its duration less the time this version has been seen.
    func timeLeft(_ name: String, _ lease: HTTPLeaseObject, wallNow: Double, now: Double) -> Double {
        min(
            lease.remaining(now: wallNow),
            lease.duration - age(name, token: lease.token, expiry: lease.expiry, now: now))
    }

    /// How long (monotonic seconds, at `now`) this machine has seen `name`'s
    /// lease as the version `token` and `expiry` (for an HTTP store's lease
    /// whose holder is not written yet, or damaged: a token and expiry no
    /// lease has).
    func age(_ name: String, token: String, expiry: Double, now: Double) -> Double {
        let since = seen.withLock { seen in
            if let sighting = seen[name], sighting.token == token, sighting.expiry == expiry {
                return sighting.since
            }
            seen[name] = (token, expiry, now)
            return now
        }
        return now - since
    }

    /// Which round of taking over `name`'s run-out lease `token` to try at
    /// `now`: 0 at first, one more each time a round has gone a whole
    /// `duration` with the lease still `token` (that round's winner died
    /// before it wrote itself in as the holder). Every machine tries round 0
    /// first and a round only once the one before it was won, so of the
    /// machines asking one wins each round.
    func takeoverRound(_ name: String, token: String, duration: Double, now: Double) -> Int {
        rounds.withLock { rounds in
            guard let tried = rounds[name], tried.token == token else {
                rounds[name] = (token, 0, now)
                return 0
            }
            guard now - tried.since >= duration else { return tried.round }
            rounds[name] = (token, tried.round + 1, now)
            return tried.round + 1
        }
    }

    /// Forgets `name`'s lease (taken over, or gone).
    func forget(_ name: String) {
        seen.withLock { _ = $0.removeValue(forKey: name) }
        rounds.withLock { _ = $0.removeValue(forKey: name) }
    }
}
