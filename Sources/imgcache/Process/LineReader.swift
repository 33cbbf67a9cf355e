import Dispatch
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from a file descriptor as a stream, a chunk at a time, so a
/// list of any length is read in constant memory. Reads happen on Dispatch's
/// pool: a blocking `read(2)` must not hold a cooperative thread. For
/// `prefetch` (package access). A read that fails (a directory, an I/O
/// error) is an error naming the input, never the end of the list: a
/// prefetch of a directory must not report "0 URLs" and exit 0.
struct LineReader: AsyncSequence {
    typealias Element = String

    /// The descriptor read from.
    let fd: Int32
    /// What error messages call the input: its path, or "standard input".
    let name: String

    /// Reads standard input.
    static var standardInput: LineReader { LineReader(fd: 0, name: "standard input") }

    private init(fd: Int32, name: String) {
        (self.fd, self.name) = (fd, name)
    }

    /// Opens the file at `path` for reading; a failure is a `.failure`
    /// error, "PATH: reason". The corresponding C function is `open`.
    init(opening path: String) throws {
        let fd = path.withPlatformString { path in POSIXFile.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) } }
        guard fd >= 0 else { throw ImageCoreError(.failure, "\(path): \(systemErrorMessage(errno))") }
        (self.fd, self.name) = (fd, path)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let fd: Int32
        let name: String
        var buffer: [UInt8] = []
        /// Where the next line starts: lines are not removed from the front
        /// one by one, which would move the rest of the chunk for each line.
        var start = 0
        var finished = false

        mutating func next() async throws(ImageCoreError) -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: start) {
                    defer { start = newline + 1 }
                    return Self.line(buffer[start..<newline])
                }
                if finished {
                    guard start < buffer.count else { return nil }
                    defer { start = buffer.count }
                    return Self.line(buffer[start...])
                }
                let chunk: [UInt8]
                switch await Self.read(fd) {
                case .success(let bytes): chunk = bytes
                case .failure(let failure):
                    throw ImageCoreError(.failure, "cannot read \(name): \(systemErrorMessage(failure.code))")
                }
                buffer.removeSubrange(..<start)
                start = 0
                if chunk.isEmpty { finished = true } else { buffer += chunk }
            }
        }

        /// A line of the list: a URL, each byte that is not UTF-8 as `%XX`
        /// (as on the command line: `percentEncodingRawBytes`), not U+FFFD.
        private static func line(_ bytes: ArraySlice<UInt8>) -> String {
            String(platformBytes: bytes).percentEncodingRawBytes
        }

        /// The next chunk (empty at the end), or the errno of a failed read.
        /// Handed over through `SanitizerHandOff`: a read of a file can end
        /// before the task has suspended.
        private static func read(_ fd: Int32) async -> Result<[UInt8], SystemErrno> {
            defer { SanitizerHandOff.receive() }
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    let count = chunk.withUnsafeMutableBytes { buffer in
                        POSIXFile.retryingInterrupts { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
                    }
                    let failure = errno
                    SanitizerHandOff.publish()
                    continuation.resume(
                        returning: count < 0 ? .failure(SystemErrno(failure)) : .success(Array(chunk.prefix(count))))
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(fd: fd, name: name)
    }
}

/// An errno as an `Error`, to carry a failed read out of Dispatch.
struct SystemErrno: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}
