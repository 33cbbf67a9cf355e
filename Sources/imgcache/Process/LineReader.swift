import Dispatch
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from a file descriptor as a stream, a chunk at a time, so a
/// list of any length is read in constant memory. Reads happen on Dispatch's
/// pool: a blocking `read(2)` must not hold a cooperative thread. For
/// `prefetch` (package access).
struct LineReader: AsyncSequence {
    typealias Element = String

    /// The descriptor read from.
    let fd: Int32

    /// Reads `fd` (stdin is 0).
    init(fd: Int32) {
        self.fd = fd
    }

    /// Opens the file at `path` for reading; a failure is a `.failure`
    /// error, "PATH: reason". The corresponding C function is `open`.
    init(opening path: String) throws {
        let fd = POSIXFile.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw ImageCoreError(.failure, "\(path): \(systemErrorMessage(errno))") }
        self.fd = fd
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let fd: Int32
        var buffer: [UInt8] = []
        /// Where the next line starts: lines are not removed from the front
        /// one by one, which would move the rest of the chunk for each line.
        var start = 0
        var finished = false

        mutating func next() async -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: start) {
                    defer { start = newline + 1 }
                    return String(decoding: buffer[start..<newline], as: UTF8.self)
                }
                if finished {
                    guard start < buffer.count else { return nil }
                    defer { start = buffer.count }
                    return String(decoding: buffer[start...], as: UTF8.self)
                }
                let chunk = await Self.read(fd)
                buffer.removeSubrange(..<start)
                start = 0
                if chunk.isEmpty { finished = true } else { buffer += chunk }
            }
        }

        private static func read(_ fd: Int32) async -> [UInt8] {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    let count = chunk.withUnsafeMutableBytes { buffer in
                        POSIXFile.retryingInterrupts { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
                    }
                    continuation.resume(returning: Array(chunk.prefix(Swift.max(count, 0))))
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(fd: fd)
    }
}
