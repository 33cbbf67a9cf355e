import Foundation
import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 for behaviour tests, with a route
/// table, fault injection and counters (requests per path, connections).
/// One thread accepts, one thread serves each connection; `stop()` (or
/// deinit) shuts every socket down so nothing can hang a test.
package final class TestHTTPServer: Sendable {
    /// A request as the server received it.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var headers: [(name: String, value: String)]
        /// When the request's head had arrived (seconds since 1970).
        package var receivedAt: Double
        /// The body (a PUT's), as far as its Content-Length says; empty in `requests`.
        package var body: [UInt8] = []

        /// The first header of that name, case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private struct State {
        var routes: [String: @Sendable (Request) -> Response] = [:]
        var fallback: (@Sendable (Request) -> Response)?
        var requests: [Request] = []
        var connections = 0
        var activeRequests = 0
        var peakActiveRequests = 0
        var openSockets: Set<Int32> = []
        var stopped = false
        var listenerOpen = true
    }

    /// The state, in a box the accept loop holds too: sockets are shut down
    /// and closed only under its lock, so `stop()` can never shut down a
    /// descriptor number that was closed and reused by another test's socket.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let listener: Int32
    /// The port the server listens on.
    package let port: Int

    /// Starts listening on 127.0.0.1 on a free port.
    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [weak self, fd, shared] in Self.acceptLoop(fd, shared) { self } }
    }

    deinit {
        stop()
    }

    /// "http://127.0.0.1:PORT/path".
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Answers `path` (without query) with a fixed response.
    package func route(_ path: String, _ response: Response) {
        shared.state.withLock { $0.routes[path] = { _ in response } }
    }

    /// Answers `path` with whatever `handler` decides per request.
    package func route(_ path: String, handler: @escaping @Sendable (Request) -> Response) {
        shared.state.withLock { $0.routes[path] = handler }
    }

    /// Answers every path without a route of its own with whatever
    /// `handler` decides (a server that stores what it is sent).
    package func routeOthers(handler: @escaping @Sendable (Request) -> Response) {
        shared.state.withLock { $0.fallback = handler }
    }

    /// Answers `path` with `responses` in turn, the last one from then on
    /// (a server that fails, then recovers).
    package func route(_ path: String, sequence responses: [Response]) {
        let served = Mutex(0)
        route(path) { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return responses[min(index, responses.count - 1)]
        }
    }

    /// Every request received, in order.
    package var requests: [Request] { shared.state.withLock { $0.requests } }
    /// Number of requests received.
    package var requestCount: Int { shared.state.withLock { $0.requests.count } }
    /// The most requests that were being answered at the same moment.
    package var peakConcurrentRequests: Int { shared.state.withLock { $0.peakActiveRequests } }
    /// Requests received and not yet answered in full.
    package var unansweredRequests: Int { shared.state.withLock { $0.activeRequests } }
    /// Number of TCP connections accepted.
    package var connectionCount: Int { shared.state.withLock { $0.connections } }

    /// Requests received for `path` (query ignored).
    package func requestCount(for path: String) -> Int {
        shared.state.withLock { $0.requests.filter { Self.stripQuery($0.path) == path }.count }
    }

    /// Closes the listener and every connection; threads end promptly.
    package func stop() {
        shared.state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            for socket in state.openSockets { shutdown(socket, Int32(SHUT_RDWR)) }
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    var isStopped: Bool { shared.state.withLock { $0.stopped } }

    /// Accepts connections while the server exists and is not stopped. It
    /// holds the server weakly, so a test that drops it ends the loop.
    private static func acceptLoop(_ listener: Int32, _ shared: Shared, _ server: () -> TestHTTPServer?) {
        defer {
            shared.state.withLock { state in
                state.listenerOpen = false
                close(listener)
            }
        }
        while let current = server(), !current.isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            current.startConnection(client)
        }
    }

    private func startConnection(_ client: Int32) {
        let accepted = shared.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.connections += 1
            state.openSockets.insert(client)
            return true
        }
        guard accepted else {
            close(client)
            return
        }
        Thread.detachNewThread { [self] in
            serve(client)
            shared.state.withLock { state in
                state.openSockets.remove(client)
                close(client)
            }
        }
    }

    /// Serves requests on one connection until the client or a response closes it.
    private func serve(_ client: Int32) {
        var buffer: [UInt8] = []
        while !isStopped {
            guard let request = readRequest(client, &buffer) else { return }
            let handler = shared.state.withLock { state in
                // The log keeps heads only: bodies are the handler's to keep.
                var logged = request
                logged.body = []
                state.requests.append(logged)
                state.activeRequests += 1
                state.peakActiveRequests = max(state.peakActiveRequests, state.activeRequests)
                return state.routes[Self.stripQuery(request.path)] ?? state.fallback
            }
            let response = handler?(request) ?? .status(404, body: Array("not found".utf8))
            let reusable = respond(client, request, response)
            shared.state.withLock { $0.activeRequests -= 1 }
            guard reusable else { return }
            if request.header("Connection")?.lowercased() == "close" { return }
        }
    }
}
