import Synchronization

/// What a run knows of each remote storage: a circuit breaker, so that a
/// store that is dead costs one failure per run and a store that was slow
/// once costs only the request it was slow for.
///
/// - A store is probed by its first request alone; requests arriving
///   meanwhile wait for the probe's outcome, so a dead store costs one
///   timeout, not one per URL in flight.
/// - A *fatal* failure (connection refused, DNS, TLS, 401 or 403, a
///   missing bucket, an answer that makes no sense) turns the store off for
///   the run at once if it has not answered yet in this run: asking it
///   again buys nothing. A read's or a lease's from a store that has
///   answered is a strike like a timeout: Apache mod_dav answers 403 to a
///   GET that meets a collection another machine is making, and a store
///   that worked a moment ago is more likely racing itself than
///   misconfigured. A refused write stays fatal (nginx's 404 or 500 on
///   every PUT while its GETs answer), and so does a refusal of the
///   credentials (`refusedCredentials`: S3's `ExpiredToken`, say, when a
///   session token runs out mid-run), whatever came before it.
/// - A *passing* failure (a timeout, a 408, 429 or 5xx, a connection lost
///   mid-answer) costs its own request only. The next request probes the
///   store alone again, as at the start; once `strikeLimit` of them come in
///   a row (any answer resets the count), the store is off for the run.
/// - A passing failure counts as a strike only if its request was sent
///   after the last strike: requests in flight when a store stalls fail
///   together, and are one strike, not one each. Every probe after a strike
///   is sent after it and counts, so a store that never answers costs at
///   most `strikeLimit` timeouts one after another, whatever `-j` is.
///
/// Thread safety: every method may be called from any task concurrently.
final class StoreHealth: Sendable {
    /// Passing failures in a row that turn a store off for the run.
    static let strikeLimit = 3

    /// A request's admission: how many strikes the store had had when it was sent.
    struct Ticket: Sendable, Equatable {
        fileprivate let strikesBefore: Int
    }

    /// How a request to a store ended.
    enum Outcome: Sendable {
        /// The store answered (an entry, a miss, a lease, a 412).
        case answered
        /// A failure that may pass (`ImageCoreError.isPassingStoreFailure`).
        case passingFailure
        /// A failure that will not.
        case fatalFailure
        /// The store refused the credentials (`ImageCoreError.refusesCredentials`):
        /// fatal even after answers, since every later request carries them too.
        case refusedCredentials
    }

    /// What a failure did to the store.
    enum Verdict: Sendable, Equatable {
        /// The store stays in use (the failure was its first strike, or a later one short of the limit, or part
        /// of a stall already counted).
        case inUse
        /// The failure turned the store off for the run: say so, once.
        case disabled
        /// The store was already off.
        case wasDisabled
    }

    private enum State {
        case untried
        /// One request is out; these wait for its outcome (a ticket, or nil: skip the store this time).
        case probing([CheckedContinuation<Ticket?, Never>])
        case healthy
        case disabled
    }

    private struct Standing {
        var state = State.untried
        /// Strikes in a row, since the last answer.
        var strikes = 0
        /// Strikes in a row among writes, since the last write went through: a
        /// store whose reads answer and whose writes all fail (nginx's 500 on
        /// every PUT until its root exists) stops costing an upload per entry.
        var writeStrikes = 0
        /// Strikes in the run: a request's ticket holds the count when it was sent.
        var allStrikes = 0
        /// Whether the store has answered a request in this run.
        var hasAnswered = false
    }

    private let stores: Mutex<[Standing]>

    init(count: Int) {
        stores = Mutex(Array(repeating: Standing(), count: count))
    }

    /// Whether store `index` is off for the run.
    func isDisabled(_ index: Int) -> Bool {
        stores.withLock { if case .disabled = $0[index].state { true } else { false } }
    }

    /// Whether store `index`'s last request failed in a way that may pass
    /// (a timeout, a 5xx) and none has answered since: a strike short of the
    /// limit.
    func isFailing(_ index: Int) -> Bool {
        stores.withLock { $0[index].strikes > 0 }
    }

    /// A lookup's admission to store `index`: at once if it answers (or
    /// this lookup is to probe it), nil if it is off, and after the probe's
    /// outcome while one is out (nil if that failed: the lookup skips the
    /// store this time rather than wait on another probe).
    func admit(_ index: Int) async -> Ticket? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Ticket?, Never>) in
            let answer: Ticket?? = stores.withLock { stores in
                let ticket = Ticket(strikesBefore: stores[index].allStrikes)
                switch stores[index].state {
                case .healthy: return .some(ticket)
                case .disabled: return .some(nil)
                case .untried:
                    stores[index].state = .probing([])
                    return .some(ticket)
                case .probing(let waiting):
                    stores[index].state = .probing(waiting + [continuation])
                    return .none
                }
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// How many lookups wait for store `index`'s probe (tests wait on it).
    func waitingCount(_ index: Int) -> Int {
        stores.withLock { if case .probing(let waiting) = $0[index].state { waiting.count } else { 0 } }
    }

    /// A ticket for a request that does not wait for a probe (an upload, a
    /// lease's): nil if store `index` is off.
    func ticket(_ index: Int) -> Ticket? {
        stores.withLock { stores in
            if case .disabled = stores[index].state { return nil }
            return Ticket(strikesBefore: stores[index].allStrikes)
        }
    }

    /// Records how a request sent with `ticket` ended; `writing` for an upload.
    @discardableResult
    func record(_ index: Int, _ ticket: Ticket, _ outcome: Outcome, writing: Bool = false) -> Verdict {
        let (verdict, released, admitted): (Verdict, [CheckedContinuation<Ticket?, Never>], Bool) = stores.withLock {
            stores in
            var store = stores[index]
            defer { stores[index] = store }
            if case .disabled = store.state { return (.wasDisabled, [], false) }
            var waiting: [CheckedContinuation<Ticket?, Never>] = []
            if case .probing(let queued) = store.state { waiting = queued }
            switch store.hasAnswered && outcome == .fatalFailure && !writing ? .passingFailure : outcome {
            case .answered:
                store.hasAnswered = true
                store.strikes = 0
                if writing { store.writeStrikes = 0 }
                store.state = .healthy
                return (.inUse, waiting, true)
            case .fatalFailure, .refusedCredentials:
                store.state = .disabled
                return (.disabled, waiting, false)
            case .passingFailure:
                // Sent before the last strike: part of a stall already counted.
                guard ticket.strikesBefore == store.allStrikes else { return (.inUse, [], false) }
                store.strikes += 1
                store.allStrikes += 1
                if writing { store.writeStrikes += 1 }
                if max(store.strikes, store.writeStrikes) >= Self.strikeLimit {
                    store.state = .disabled
                    return (.disabled, waiting, false)
                }
                // The next request probes it alone again.
                store.state = .untried
                return (.inUse, waiting, false)
            }
        }
        let ticket = admitted ? self.ticket(index) : nil
        for continuation in released { continuation.resume(returning: ticket) }
        return verdict
    }
}

extension ImageCoreError {
    /// Whether a remote store that failed so may answer the next request:
    /// a timeout, a connection lost mid-answer, or a status that says "not
    /// now" (408, 429, 5xx). Anything else (refused, DNS, TLS, 401, 403, a
    /// missing bucket, a malformed answer) will fail the next one too.
    var isPassingStoreFailure: Bool {
        if let status = httpStatus { return Self.transientStatuses.contains(status) || (500..<600).contains(status) }
        return transportFault != nil
    }

    /// Whether an S3 store refused the request's credentials, as it will
    /// every request's of the run (they are read once, at its start): a
    /// wrong key or secret, a session token that ran out, a clock too far
    /// off to sign with, a suspended account. Unlike `AccessDenied` (the
    /// policy's answer, which for a GET may only mean a missing key), these
    /// say nothing about the object asked for.
    var refusesCredentials: Bool {
        httpStatus == 403 && serviceCode.map { Self.credentialCodes.contains($0) } == true
    }

    /// S3's error codes for credentials it will not accept (403s all).
    static let credentialCodes: Set<String> = [
        "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
        "RequestTimeTooSkewed", "AccountProblem", "AllAccessDisabled", "InvalidSecurity",
    ]
}
