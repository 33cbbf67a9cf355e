import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of an HTTP server that, once armed,
/// holds the body of the next request that has one until released: its
/// head reaches the server at once, its body only later, as from a client
/// that stalled (loaded, or far away) between the two. HTTP/1.1 requests
/// with a Content-Length, as libcurl sends its uploads.
final class BodyHoldingProxy: @unchecked Sendable {
    // Why unchecked: the sockets are set once in init; the state is behind a Mutex.
    let port: Int
    private let listener: Int32
    private let upstream: Int
    private enum Hold { case off, armed, holding, released }
    private let hold = Mutex(Hold.off)

    init(to upstream: Int) throws {
        (listener, port) = try LoopbackSocket.bound()
        self.upstream = upstream
        guard Glibc.listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread.detachNewThread { [self] in accepting() }
    }

    /// Stops accepting connections (those open end with their client's or server's).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// Holds the body of the next request that has one.
    func arm() { hold.withLock { $0 = .armed } }
    /// Whether a request's head went on and its body is held.
    var isHolding: Bool { hold.withLock { $0 == .holding } }
    /// Sends the held body on.
    func release() { hold.withLock { $0 = .released } }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                close(listener)
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard LoopbackSocket.connect(server, port: upstream) else {
                close(client)
                close(server)
                continue
            }
            // Both sockets are closed by the last of the two threads to finish
            // (closed sooner, a number could be reused by the next connection
            // while the other thread still shuts it down).
            let running = Mutex(2)
            let done = { @Sendable in
                guard
                    running.withLock({
                        $0 -= 1
                        return $0 == 0
                    })
                else { return }
                close(client)
                close(server)
            }
            Thread.detachNewThread { [self] in
                requests(from: client, to: server)
                done()
            }
            Thread.detachNewThread {
                Self.copy(from: server, to: client)
                done()
            }
        }
    }

    /// Passes requests on one by one, holding a body when armed.
    private func requests(from client: Int32, to server: Int32) {
        defer { shutdown(server, Int32(SHUT_WR)) }
        var buffer: [UInt8] = []
        while true {
            // The head.
            var end: Int?
            while end == nil {
                end = Self.headEnd(buffer)
                if end == nil {
                    guard let more = Self.read(client) else { return }
                    buffer += more
                }
            }
            let head = Array(buffer[..<end!])
            buffer.removeFirst(end!)
            guard Self.write(server, head) else { return }
            var length = Self.contentLength(head)
            if length > 0 {
                let holding = hold.withLock { hold -> Bool in
                    guard hold == .armed else { return false }
                    hold = .holding
                    return true
                }
                while holding && hold.withLock({ $0 == .holding }) { usleep(1000) }
            }
            while length > 0 {
                if buffer.isEmpty {
                    guard let more = Self.read(client) else { return }
                    buffer = more
                }
                let part = Array(buffer.prefix(length))
                buffer.removeFirst(part.count)
                length -= part.count
                guard Self.write(server, part) else { return }
            }
        }
    }

    private static func copy(from source: Int32, to destination: Int32) {
        while let bytes = read(source), write(destination, bytes) {}
        shutdown(destination, Int32(SHUT_WR))
    }

    private static func read(_ descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? Array(bytes.prefix(count)) : nil
    }

    private static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func headEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index..<index + 4].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return nil
    }

    private static func contentLength(_ head: [UInt8]) -> Int {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return 0
    }
}
