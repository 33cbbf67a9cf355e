import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Callers of one key share its first caller's run: its value or its error,
/// once; a key whose run has ended runs again.
struct InflightLoadsTests {
    /// A run that ends when the test says so.
    final class Gate: Sendable {
        private let (stream, continuation) = AsyncStream<Void>.makeStream()
        let runs = Atomic<Int>(0)
        func open() { continuation.finish() }
        func pass() async {
            runs.add(1, ordering: .relaxed)
            for await _ in stream {}
        }
    }

    @Test func callersWhileARunIsInProgressJoinItAndGetItsValue() async throws {
        let loads = InflightLoads<String, Int>()
        let gate = Gate()
        let first = Task {
            try await loads.run("k") {
                await gate.pass()
                return 7
            }
        }
        #expect(await waitUntil { gate.runs.load(ordering: .relaxed) == 1 })
        let joiners = (0..<3).map { _ in
            Task {
                try await loads.run("k") {
                    Issue.record("a second run of one key")
                    return 0
                }
            }
        }
        #expect(await waitUntil { loads.waiting(for: "k") == 3 })
        gate.open()
        let (value, joined) = try await first.value
        #expect(value == 7 && !joined)
        for joiner in joiners {
            let (value, joined) = try await joiner.value
            #expect(value == 7 && joined)
        }
        #expect(gate.runs.load(ordering: .relaxed) == 1)
        #expect(loads.waiting(for: "k") == 0)
    }

    @Test func joinersGetTheRunsError() async throws {
        let loads = InflightLoads<String, Int>()
        let gate = Gate()
        let first = Task {
            try await loads.run("k") { () async throws -> Int in
                await gate.pass()
                throw ImageCoreError(.http, "HTTP 500")
            }
        }
        #expect(await waitUntil { gate.runs.load(ordering: .relaxed) == 1 })
        let joiner = Task { try await loads.run("k") { 0 } }
        #expect(await waitUntil { loads.waiting(for: "k") == 1 })
        gate.open()
        for task in [first, joiner] {
            await #expect(throws: ImageCoreError.self) { try await task.value }
        }
    }

    /// Cancelling the caller whose task runs the work cancels its own load
    /// only: a joiner runs the work itself.
    @Test func aCancelledFirstCallersJoinersRunTheWorkThemselves() async throws {
        let loads = InflightLoads<String, Int>()
        let gate = Gate()
        let first = Task {
            try await loads.run("k") {
                await gate.pass()
                try Task.checkCancellation()
                return 7
            }
        }
        #expect(await waitUntil { gate.runs.load(ordering: .relaxed) == 1 })
        let joiner = Task { try await loads.run("k") { 8 } }
        #expect(await waitUntil { loads.waiting(for: "k") == 1 })
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        let (value, joined) = try await joiner.value
        #expect(value == 8 && !joined)
    }

    @Test func aKeyWhoseRunEndedRunsAgainAndOtherKeysRunApart() async throws {
        let loads = InflightLoads<String, Int>()
        let runs = Atomic<Int>(0)
        for expected in 1...2 {
            let (value, joined) = try await loads.run("k") { runs.add(1, ordering: .relaxed).newValue }
            #expect(value == expected && !joined)
        }
        let (other, joined) = try await loads.run("other") { 9 }
        #expect(other == 9 && !joined)
        #expect(runs.load(ordering: .relaxed) == 2)
    }
}
