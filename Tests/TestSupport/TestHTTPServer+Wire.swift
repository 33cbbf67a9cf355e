import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes on the wire: response heads, sends that survive a closed
/// socket, request heads read in pieces, and waits that `stop()` can cut short.
extension TestHTTPServer {
    func head(_ status: Int, _ headers: [String: String], length: Int?) -> [UInt8] {
        var lines = ["HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")"]
        if let length { lines.append("Content-Length: \(length)") }
        lines += headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7), as Date and Last-Modified carry.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// Sleeps in short steps so `stop()` ends the wait.
    func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end && !isStopped { usleep(20_000) }
    }

    func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads one request, its head and a Content-Length body; nil when the
    /// connection ends, the head exceeds 64 KiB, or the server stops.
    func readRequest(_ client: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                let headers = lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                }
                var request = Request(
                    method: String(requestLine[0]), path: String(requestLine[1]),
                    headers: headers.map { (name: $0.0, value: $0.1) }, receivedAt: Date().timeIntervalSince1970)
                // A body (a PUT's) is read whole, so that the next request
                // on the connection starts where it should.
                let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
                while buffer.count < length {
                    guard receive(client, &buffer) else { return nil }
                }
                request.body = Array(buffer.prefix(length))
                buffer.removeFirst(length)
                return request
            }
            guard buffer.count < 65536, receive(client, &buffer) else { return nil }
        }
    }

    /// Appends what the client sent within 100 ms (maybe nothing); false
    /// once it closed or the server stops.
    private func receive(_ client: Int32, _ buffer: inout [UInt8]) -> Bool {
        guard !isStopped else { return false }
        var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 100) == 0 { return true }
        var chunk = [UInt8](repeating: 0, count: 8192)
        let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk.prefix(count)
        return true
    }

    static func stripQuery(_ path: String) -> String {
        String(path.prefix { $0 != "?" })
    }
}
