import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes to stdout and stderr with plain `write(2)`: no buffering surprises
/// between the two, and binary data goes out unchanged. A lock keeps lines
/// from concurrent tasks whole. For the command line (package access).
package enum StandardStreams {
    private static let lock = Mutex(())

    /// Writes bytes to stdout. Returns false if stdout is closed or broken.
    @discardableResult
    package static func write(_ bytes: [UInt8]) -> Bool {
        lock.withLock { _ in bytes.withUnsafeBytes { POSIXFile.writeAll(1, $0) } }
    }

    /// Writes bytes to stdout as one piece among other writers. Returns false
    /// if stdout is closed or broken.
    package static func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        lock.withLock { _ in POSIXFile.writeAll(1, buffer) }
    }

    /// Writes a line to stdout.
    package static func print(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// Writes a line to stderr.
    package static func printError(_ line: String) {
        writeError(line + "\n")
    }

    /// Writes text to stderr without a newline (progress drawing).
    package static func writeError(_ text: String) {
        _ = lock.withLock { _ in Array(text.utf8).withUnsafeBytes { POSIXFile.writeAll(2, $0) } }
    }

    /// Whether the file descriptor is a terminal. The corresponding C function is `isatty`.
    package static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The width in columns of the terminal on `fd`, or nil if it is none or
    /// does not say. The corresponding C call is `ioctl(TIOCGWINSZ)`.
    package static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
