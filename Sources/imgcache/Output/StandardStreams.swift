import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes to stdout and stderr with plain `write(2)`: no buffering surprises
/// between the two, and binary data goes out unchanged. A lock keeps lines
/// from concurrent tasks whole.
enum StandardStreams {
    private static let lock = Mutex(())

    /// Writes bytes to stdout. Returns false if stdout is closed or broken.
    @discardableResult
    static func write(_ bytes: [UInt8]) -> Bool {
        lock.withLock { _ in writeAll(1, bytes) }
    }

    /// Writes a line to stdout.
    static func print(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// Writes a line to stderr.
    static func printError(_ line: String) {
        _ = lock.withLock { _ in writeAll(2, Array((line + "\n").utf8)) }
    }

    /// Writes text to stderr without a newline (progress drawing).
    static func writeError(_ text: String) {
        _ = lock.withLock { _ in writeAll(2, Array(text.utf8)) }
    }

    /// Writes a line to stdout (or stderr), first erasing `progress` when
    /// the line goes to the terminal the bar is drawn on.
    static func print(_ line: String, toStderr: Bool = false, above progress: ProgressBar?) {
        let output = { toStderr ? printError(line) : print(line) }
        if let progress, toStderr || isTerminal(1) { progress.writeAbove(output) } else { output() }
    }

    /// Whether the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Writes all of `bytes` to `fd`, retrying short writes; false on an error (errno says which).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Writes all of `buffer` to `fd`, retrying short writes; false on an error (errno says which).
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    /// Writes bytes to stdout as one piece among other writers. Returns false
    /// if stdout is closed or broken.
    static func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        lock.withLock { _ in writeAll(1, buffer) }
    }
}
