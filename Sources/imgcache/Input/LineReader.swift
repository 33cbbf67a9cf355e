import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from a file descriptor as a stream, a chunk at a time, so a
/// list of any length is read in constant memory. Reads happen on Dispatch's
/// pool: a blocking `read(2)` must not hold a cooperative thread.
struct LineReader: AsyncSequence {
    typealias Element = String

    let fd: Int32

    struct AsyncIterator: AsyncIteratorProtocol {
        let fd: Int32
        var buffer: [UInt8] = []
        var finished = false

        mutating func next() async -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    return line
                }
                if finished {
                    guard !buffer.isEmpty else { return nil }
                    defer { buffer.removeAll() }
                    return String(decoding: buffer, as: UTF8.self)
                }
                let chunk = await Self.read(fd)
                if chunk.isEmpty { finished = true } else { buffer += chunk }
            }
        }

        private static func read(_ fd: Int32) async -> [UInt8] {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    var count = 0
                    repeat {
                        count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                    } while count < 0 && errno == EINTR
                    continuation.resume(returning: Array(chunk.prefix(Swift.max(count, 0))))
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(fd: fd)
    }
}
