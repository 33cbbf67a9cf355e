import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The curl loop's thread and its wake-ups, against the loopback server. Its
/// polls are an hour long here, so a transfer the loop is not woken for
/// waits an hour: a missed wake-up fails the test (at `waitUntil`'s limit)
/// instead of passing a second late.
@Suite(.serialized) struct CurlMultiLoopTests {
    let server: TestHTTPServer
    let directory: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        directory = try TemporaryDirectory()
    }

    func loop(slots: Int) throws -> CurlMultiLoop {
        var settings = Downloader.Configuration(temporaryDirectory: directory.path)
        settings.maxConcurrentDownloads = slots
        settings.longestIdlePoll = 3600
        settings.longestBusyPoll = 3600
        return try CurlMultiLoop(settings: settings)
    }

    /// A transfer queued on `loop`, as `Downloader.download` queues it.
    func transfer(_ path: String, on loop: CurlMultiLoop, id: UInt64) -> Task<DownloadResponse, any Error> {
        transfer(url: server.url(path), on: loop, id: id)
    }

    func transfer(url: String, on loop: CurlMultiLoop, id: UInt64) -> Task<DownloadResponse, any Error> {
        let request = DownloadRequest(url: url)
        let queued = self.queued
        return Task {
            try await withCheckedThrowingContinuation { continuation in
                loop.enqueue(id: id, request: request, body: nil, continuation: continuation)
                queued.add()
            }
        }
    }

    /// Transfers handed to `enqueue` so far (a task runs when the pool gets to it).
    let queued = Counter()

    /// An idle loop sleeps in poll with a free slot (`wantsWork`): a new
    /// transfer must wake it. The first transfer, refused, starts the
    /// loop's thread and leaves no connection behind whose closing could
    /// end the poll instead of the wake-up.
    @Test func aTransferQueuedOnAnIdleLoopWakesIt() async throws {
        server.route("/a.png", .ok(Fixtures.tinyPNG))
        let (refusing, port) = try LoopbackSocket.bound()
        defer { close(refusing) }
        let loop = try loop(slots: 2)
        defer { loop.shutDown(waiting: true) }
        await #expect(throws: ImageCoreError.self) {
            try await transfer(url: "http://127.0.0.1:\(port)/a.png", on: loop, id: 1).value
        }
        // The loop is idle now; the next transfer's start depends on the wake-up alone.
        let second = transfer("/a.png", on: loop, id: 2)
        guard await waitUntil({ server.requestCount(for: "/a.png") == 1 }) else {
            Issue.record("the idle loop was not woken for a new transfer")
            return  // shutDown (deferred) ends it
        }
        #expect(try await second.value.status == 200)
    }

    /// With every slot busy no wake-up is sent: the loop starts queued
    /// transfers itself as running ones end. The busy slot's answer is held
    /// until the three are queued, however late this test's tasks run (with a
    /// 0.5 s trickle, a test that queued them after it ended found an idle
    /// loop, woken for each: it passed without a slot freeing).
    @Test func transfersQueuedBehindABusySlotStartAsItFrees() async throws {
        let answer = DispatchSemaphore(value: 0)
        defer { answer.signal() }
        server.route("/slow.png") { _ in
            answer.wait()
            return .ok(Fixtures.tinyPNG)
        }
        server.route("/a.png", .ok(Fixtures.tinyPNG))
        let loop = try loop(slots: 1)
        defer { loop.shutDown(waiting: true) }
        let slow = transfer("/slow.png", on: loop, id: 1)
        #expect(await waitUntil { server.requestCount(for: "/slow.png") == 1 })
        let queued = (2...4).map { transfer("/a.png", on: loop, id: UInt64($0)) }
        #expect(await waitUntil { self.queued.value == 4 })
        #expect(server.requestCount(for: "/a.png") == 0, "a transfer started while the only slot was busy")
        answer.signal()
        guard await waitUntil({ server.requestCount(for: "/a.png") == 3 }) else {
            Issue.record("the queued transfers did not start as the slot freed")
            return  // shutDown (deferred) ends them
        }
        #expect(try await slow.value.status == 200)
        for task in queued { #expect(try await task.value.status == 200) }
        #expect(server.peakConcurrentRequests == 1)
    }

    /// `shutDown` right as the first transfer starts the thread: the thread
    /// is started under the inbox's lock, so `shutDown` either finds none
    /// (and cleans up itself) or joins it; either way libcurl is cleaned up
    /// when it returns, and the transfer fails as interrupted or finishes.
    @Test func shutDownAsTheFirstTransferStartsTheThreadWaitsForIt() async throws {
        server.route("/a.png", .ok(Fixtures.tinyPNG))
        for round in 0..<40 {
            let loop = try loop(slots: 1)
            let first = transfer("/a.png", on: loop, id: 1)
            if round % 2 == 0 { await Task.yield() }
            loop.shutDown(waiting: true)
            #expect(loop.isCleanedUp, "round \(round)")
            do {
                _ = try await first.value
            } catch let error as ImageCoreError {
                #expect(error.kind == .interrupted, "round \(round): \(error.message)")
            }
            // Queued after the shut-down: refused, never added to a cleaned-up handle.
            await #expect(throws: ImageCoreError.self) { try await transfer("/a.png", on: loop, id: 2).value }
        }
    }
}
