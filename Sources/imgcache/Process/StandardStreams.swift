import ImageCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes to stdout and stderr with plain `write(2)`: no buffering surprises
/// between the two, and binary data goes out unchanged. A lock keeps lines
/// from concurrent tasks whole. For the command line (package access).
enum StandardStreams {
    /// The errno of the first write to stdout that failed (0: none yet),
    /// kept under the lock. Once stdout has failed nothing more is written
    /// to it, and the command ends with one line and exit 23 (`failure`).
    private static let lock = Mutex<Int32>(0)

    /// Writes bytes to stdout. Returns false if stdout could not be written
    /// (`failure` says why).
    @discardableResult
    static func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes bytes to stdout as one piece among other writers. Returns false
    /// if stdout could not be written (`failure` says why). A closed pipe
    /// ends the process by SIGPIPE, silently, as it would have had SIGPIPE
    /// not been ignored (by a parent, or by a library while it ran).
    static func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        lock.withLock { failed in
            guard failed == 0 else { return false }
            if POSIXFile.writeAll(1, buffer) { return true }
            failed = errno
            if failed == EPIPE { endByBrokenPipe() }
            return false
        }
    }

    /// Why writing to stdout failed (`write error: No space left on device`),
    /// or nil if every write succeeded.
    static var failure: ImageCoreError? {
        let code = lock.withLock { $0 }
        return code == 0 ? nil : ImageCoreError(.output, "write error: \(systemErrorMessage(code))")
    }

    /// Dies of SIGPIPE (exit status 141 in a shell). The corresponding C
    /// calls are `signal(SIGPIPE, SIG_DFL)` and `raise`.
    private static func endByBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Writes a line to stdout: a path in it as its bytes (`platformBytes`),
    /// so that `--path` and `--output-dir`'s lines name the file as it is.
    static func print(_ line: String) {
        // The string's own bytes, not an `Array` of them: for `--version` that
        // would be the first array the process makes, and its storage type
        // costs 26 k instructions on first use (callgrind).
        var text = line + "\n"
        if text.mayHoldRawBytes {
            write(text.platformBytes)
            return
        }
        _ = text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a line to stderr.
    static func printError(_ line: String) {
        writeError(line + "\n")
    }

    /// Writes text to stderr without a newline (progress drawing): a byte
    /// of a path that is not UTF-8 as `\xE9` (`escapingRawBytes`), for a
    /// person to read.
    static func writeError(_ text: String) {
        _ = lock.withLock { _ in Array(text.escapingRawBytes.utf8).withUnsafeBytes { POSIXFile.writeAll(2, $0) } }
    }

    /// Whether the file descriptor is a terminal. The corresponding C function is `isatty`.
    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The width in columns of the terminal on `fd`, or nil if it is none or
    /// does not say. The corresponding C call is `ioctl(TIOCGWINSZ)`.
    static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
