#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor, owned: closed by `close()` or in `deinit`. The
/// one type for a file held open across calls, and the one for a file held
/// under an exclusive `flock` lock (which closing releases).
final class OpenFile {
    /// The path it was opened at, for error messages.
    let path: String
    private(set) var descriptor: Int32

    /// Takes ownership of `descriptor`, open at `path`.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close() }

    /// Opens `path` read-write (creating it, mode 0600) and takes an
    /// exclusive lock, waiting for it if `waiting`; nil if not `waiting` and
    /// another process holds it. The corresponding C functions are `open`
    /// and `flock`.
    static func locked(_ path: String, waiting: Bool) throws -> OpenFile? {
        let fd = POSIXFile.retryingInterrupts { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw ImageCoreError.cacheIO("cannot open", path: path, errno: errno) }
        let file = OpenFile(descriptor: fd, path: path)
        guard POSIXFile.retryingInterrupts({ flock(fd, LOCK_EX | (waiting ? 0 : LOCK_NB)) }) == 0 else {
            let code = errno
            file.close()
            if code == EWOULDBLOCK { return nil }
            throw ImageCoreError.cacheIO("cannot lock", path: path, errno: code)
        }
        return file
    }

    /// The file's size now. The corresponding C function is `fstat`.
    func size() throws -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ImageCoreError.cacheIO("cannot stat", path: path, errno: errno)
        }
        return Int(info.st_size)
    }

    /// Everything from the current offset to the end. The corresponding C function is `read`.
    func readToEnd() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { chunk in
                POSIXFile.retryingInterrupts { read(descriptor, chunk.baseAddress!, chunk.count) }
            }
            if n < 0 { throw ImageCoreError.cacheIO("cannot read", path: path, errno: errno) }
            if n == 0 { return bytes }
            bytes += buffer[..<n]
        }
    }

    /// Writes all of `buffer` at the current offset.
    func write(_ buffer: UnsafeRawBufferPointer) throws {
        try POSIXFile.writeAll(descriptor, buffer, path: path)
    }

    /// Writes all of `bytes` at the current offset.
    func write(_ bytes: [UInt8]) throws {
        try POSIXFile.writeAll(descriptor, bytes, path: path)
    }

    /// Empties the file and goes back to its start. The corresponding C
    /// functions are `ftruncate` and `lseek`.
    func truncate() {
        _ = ftruncate(descriptor, 0)
        _ = lseek(descriptor, 0, SEEK_SET)
    }

    /// Writes `bytes` over the file from its start, and cuts the file to
    /// their length only if they are shorter than the `size` it had. Why:
    /// emptying a file first frees its block, and on ext4 mounted with
    /// `discard` that `ftruncate` to 0 took 0.2-6 ms, more than the rest of a
    /// warm hit. The corresponding C functions are `lseek`, `write` and
    /// `ftruncate`.
    func overwrite(with bytes: [UInt8], size: Int) throws {
        _ = lseek(descriptor, 0, SEEK_SET)
        try write(bytes)
        if bytes.count < size { _ = ftruncate(descriptor, off_t(bytes.count)) }
    }

    /// The file's size and its number of names (0 once it was removed).
    /// The corresponding C function is `fstat`.
    func sizeAndLinks() -> (size: Int, links: Int)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return (Int(info.st_size), Int(info.st_nlink))
    }

    /// Whether `path` still names this open file (same device and inode).
    /// A file locked after another process renamed it elsewhere is no
    /// longer the one at `path`. The corresponding C functions are `fstat`
    /// and `stat`.
    func isStill(at path: String) -> Bool { sizeIfStill(at: path) != nil }

    /// The file's size if `path` still names it (see `isStill(at:)`), else
    /// nil: both facts from the one `fstat`.
    func sizeIfStill(at path: String) -> Int? {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0,
            open.st_dev == named.st_dev && open.st_ino == named.st_ino
        else { return nil }
        return Int(open.st_size)
    }

    /// Hands the descriptor (and any `flock` lock on it) over to the
    /// caller, who closes it; this object no longer does.
    func takeDescriptor() -> Int32 {
        defer { descriptor = -1 }
        return descriptor
    }

    /// Moves the offset to the end, to append. The corresponding C function is `lseek`.
    func seekToEnd() {
        _ = lseek(descriptor, 0, SEEK_END)
    }

    /// Closes the descriptor (once). The corresponding C function is `close`.
    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}
