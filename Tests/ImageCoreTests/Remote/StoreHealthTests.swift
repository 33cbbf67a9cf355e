import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// The remote tier's circuit breaker (`StoreHealth`), as pure logic: which
/// failures turn a store off for the run, and how failures that may pass
/// are counted when many requests are out at once.
struct StoreHealthTests {
    let limit = StoreHealth.strikeLimit

    /// A probe that answers, then `count` lookups admitted while the store answers.
    func healthyWithTickets(_ health: StoreHealth, _ count: Int) async throws -> [StoreHealth.Ticket] {
        let probe = try #require(await health.admit(0))
        health.record(0, probe, .answered)
        var tickets: [StoreHealth.Ticket] = []
        for _ in 0..<count { tickets.append(try #require(await health.admit(0))) }
        return tickets
    }

    @Test func sixRequestsTimingOutInOneStallAreOneStrike() async throws {
        let health = StoreHealth(count: 1)
        let inFlight = try await healthyWithTickets(health, 6)
        let verdicts = inFlight.map { health.record(0, $0, .passingFailure) }
        #expect(verdicts == Array(repeating: .inUse, count: 6))
        #expect(!health.isDisabled(0))
        // Each probe after it is sent after the last strike, and counts: the
        // store is off at the limit, one probe at a time.
        for strike in 2...limit {
            let probe = try #require(await health.admit(0), "the store was off after \(strike - 1) strikes")
            #expect(health.record(0, probe, .passingFailure) == (strike == limit ? .disabled : .inUse))
        }
        #expect(health.isDisabled(0))
        #expect(await health.admit(0) == nil)
        #expect(health.ticket(0) == nil)
    }

    @Test func anAnswerResetsTheCount() async throws {
        let health = StoreHealth(count: 1)
        for _ in 0..<3 {
            for _ in 1..<limit {
                let probe = try #require(await health.admit(0))
                #expect(health.record(0, probe, .passingFailure) == .inUse)
            }
            let probe = try #require(await health.admit(0))
            #expect(health.record(0, probe, .answered) == .inUse)
        }
        #expect(!health.isDisabled(0))
    }

    /// A store that has answered and then refuses the credentials (a session
    /// token ran out) is off at once: unlike another refusal, it is no strike.
    @Test func refusedCredentialsAreFatalEvenAfterAnswers() async throws {
        let health = StoreHealth(count: 2)
        let lookup = try #require(try await healthyWithTickets(health, 1).first)
        #expect(health.record(0, lookup, .fatalFailure) == .inUse)
        let next = try #require(await health.admit(0))
        #expect(health.record(0, next, .refusedCredentials) == .disabled)
        #expect(health.isDisabled(0) && !health.isDisabled(1))
    }

    @Test func aFatalFailureTurnsTheStoreOffAtOnceAndOnce() async throws {
        let health = StoreHealth(count: 2)
        let probe = try #require(await health.admit(0))
        let upload = try #require(health.ticket(0))
        #expect(health.record(0, probe, .fatalFailure) == .disabled)
        #expect(health.record(0, upload, .fatalFailure, writing: true) == .wasDisabled)
        #expect(health.isDisabled(0) && !health.isDisabled(1))
    }

    /// A refusal from a store that has answered in this run (Apache's 403
    /// to a request meeting a collection another machine is making) is a
    /// strike, not the end; one before any answer ends it at once.
    @Test func aRefusalAfterAnAnswerIsAStrike() async throws {
        let health = StoreHealth(count: 1)
        let tickets = try await healthyWithTickets(health, 1)
        #expect(health.record(0, tickets[0], .fatalFailure) == .inUse)
        for strike in 2...limit {
            let probe = try #require(await health.admit(0))
            #expect(health.record(0, probe, .fatalFailure) == (strike == limit ? .disabled : .inUse))
        }
        // A refused write is the end, answered or not.
        let other = StoreHealth(count: 1)
        let write = try #require(try await healthyWithTickets(other, 1).first)
        #expect(other.record(0, write, .fatalFailure, writing: true) == .disabled)
    }

    /// Lookups waiting on a probe that timed out skip the store this time
    /// (they go to the origin rather than wait on another probe); the next
    /// lookup probes it again.
    @Test func lookupsWaitingOnAProbeThatFailedSkipTheStoreOnce() async throws {
        let health = StoreHealth(count: 1)
        let probe = try #require(await health.admit(0))
        let waiters = (0..<3).map { _ in Task { await health.admit(0) } }
        #expect(await waitUntil { health.waitingCount(0) == 3 })
        #expect(health.record(0, probe, .passingFailure) == .inUse)
        for waiter in waiters { #expect(await waiter.value == nil) }
        let next = try #require(await health.admit(0), "the store was skipped for the run")
        let waiter = Task { await health.admit(0) }
        #expect(await waitUntil { health.waitingCount(0) == 1 })
        health.record(0, next, .answered)
        #expect(await waiter.value != nil)
    }

    /// Writes that keep failing while reads answer (nginx's 500 on every
    /// PUT until its root exists) turn the store off at the limit too.
    @Test func writesFailingInARowTurnTheStoreOffThoughReadsAnswer() async throws {
        let health = StoreHealth(count: 1)
        for strike in 1...limit {
            let read = try #require(await health.admit(0))
            health.record(0, read, .answered)
            let write = try #require(health.ticket(0))
            #expect(health.record(0, write, .passingFailure, writing: true) == (strike == limit ? .disabled : .inUse))
        }
    }

    @Test func whichStoreFailuresMayPass() {
        var timeout = ImageCoreError(.network, "timed out")
        timeout.transportFault = .timedOut
        #expect(timeout.isPassingStoreFailure)
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(ImageCoreError.httpStatus(status).isPassingStoreFailure, "\(status)")
        }
        for status in [401, 403, 404, 405, 409] {
            #expect(!ImageCoreError.httpStatus(status).isPassingStoreFailure, "\(status)")
        }
        #expect(!ImageCoreError(.network, "could not connect (Connection refused)").isPassingStoreFailure)
    }
}
