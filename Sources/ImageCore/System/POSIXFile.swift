#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX file calls the caches need, turning errno into
/// `ImageCoreError.cacheIO`. The raw file-system calls of ImageCore live
/// here and in its siblings in `System/` (`OpenFile` for a descriptor held
/// open or locked).
package enum POSIXFile {
    /// Runs `call` again while it fails with EINTR (a signal arrived): the
    /// one retry loop for interrupted system calls.
    package static func retryingInterrupts<Result: FixedWidthInteger & SignedInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// Reads a whole file. Returns nil if it does not exist.
    package static func read(_ path: String, limit: Int = Int.max) throws -> [UInt8]? {
        try readWithModificationTime(path, limit: limit)?.bytes
    }

    /// Reads a whole file, with its modification time from the same open
    /// descriptor (no second look-up of the path). Nil if it does not exist.
    static func readWithModificationTime(
        _ path: String, limit: Int = Int.max
    ) throws -> (
        bytes: [UInt8], modified: Double
    )? {
        try withOpenFile(path) { fd in
            let (size, modified) = try status(of: fd, path: path)
            guard size <= limit else { throw ImageCoreError(.cacheIO, "\(path) is larger than \(limit) bytes") }
            return (try read(fd, count: size, path: path), modified)
        }
    }

    /// Reads a whole file under a shared `flock` lock, taken before its size
    /// is: a writer that rewrites the file in place under the exclusive one
    /// (`OpenFile.locked`) is never read halfway. Nil if it does not exist.
    /// The corresponding C functions are `open`, `flock`, `fstat` and `read`.
    static func readShared(_ path: String, limit: Int = Int.max) throws -> [UInt8]? {
        try withOpenFile(path) { fd in
            guard retryingInterrupts({ flock(fd, LOCK_SH) }) == 0 else {
                throw ImageCoreError.cacheIO("cannot lock", path: path, errno: errno)
            }
            let (size, _) = try status(of: fd, path: path)
            guard size <= limit else { throw ImageCoreError(.cacheIO, "\(path) is larger than \(limit) bytes") }
            return try read(fd, count: size, path: path)
        }
    }

    /// Calls `body` with `path` open for reading, closing it after; nil if
    /// the file does not exist.
    static func withOpenFile<Result>(_ path: String, _ body: (Int32) throws -> Result) throws -> Result? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ImageCoreError.cacheIO("cannot open", path: path, errno: errno)
        }
        defer { close(fd) }
        return try body(fd)
    }

    /// Size and modification time of the open file `fd`.
    static func status(of fd: Int32, path: String) throws -> (size: Int, modified: Double) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ImageCoreError.cacheIO("cannot stat", path: path, errno: errno) }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Reads `count` bytes from `fd`'s offset, fewer if the file ends first.
    static func read(_ fd: Int32, count size: Int, path: String) throws -> [UInt8] {
        var failure: Int32 = 0
        // Uninitialized, not zeroed: every byte kept is one read() wrote.
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = retryingInterrupts { Glibc.read(fd, buffer.baseAddress! + done, size - done) }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                done += n
            }
            // A file that shrank under us (a concurrent writer never does that,
            // as writes are renames, but a damaged disk might) is returned
            // short so that checksum verification rejects it.
            count = done
        }
        if failure != 0 { throw ImageCoreError.cacheIO("cannot read", path: path, errno: failure) }
        return bytes
    }

    /// Writes `bytes` to a new file in `directory` and renames it to `path`, so
    /// readers see the old content or the new, never a mix.
    static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryDirectory directory: String) throws {
        let temporary = try writeTemporary(bytes, in: directory)
        try rename(temporary, to: path)
    }

    /// Writes `bytes` to a fresh, uniquely named file in `directory`; returns its path.
    static func writeTemporary(_ bytes: [UInt8], in directory: String) throws -> String {
        let (fd, path) = try createTemporary(in: directory, suffix: ".tmp")
        defer { close(fd) }
        do {
            try writeAll(fd, bytes, path: path)
        } catch {
            unlink(path)
            throw error
        }
        return path
    }

    /// Creates a new file with a unique name, mode 0600, open for writing;
    /// creates `directory` if it is missing (a shard removed by `purge`).
    /// `O_EXCL` with a per-process counter (`UniqueName`) instead of
    /// `mkstemps`, which asks the kernel for random bytes on every call.
    static func createTemporary(in directory: String, suffix: String) throws -> (Int32, String) {
        var madeDirectory = false
        while true {
            let path = "\(directory)/\(UniqueName.make())\(suffix)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, path) }
            let code = errno
            if code == EEXIST || code == EINTR { continue }  // a dead process's leftover with our pid
            if code == ENOENT && !madeDirectory {
                madeDirectory = true
                try makeDirectories(directory)
                continue
            }
            throw ImageCoreError.cacheIO("cannot create", path: path, errno: code)
        }
    }

    /// Creates a private directory (mode 0700) under `$TMPDIR`, else /tmp;
    /// returns its path. For downloads that a read-only cache cannot take.
    static func makeScratchDirectory() throws -> String {
        // `$TMPDIR`'s bytes as they are (`String(platformBytes:)`): made with
        // `String(cString:)`, a byte that is not UTF-8 became U+FFFD, whose
        // directory did not exist.
        let base =
            getenv("TMPDIR").map { String(platformCString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = "\(base)/imgcache-XXXXXX".platformBytes.map { CChar(bitPattern: $0) } + [0]
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let path = String(platformBytes: template.dropLast().map { UInt8(bitPattern: $0) })
        guard made != nil else { throw ImageCoreError.cacheIO("cannot create directory", path: path, errno: errno) }
        return path
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            try writeAll(fd, buffer, path: path)
        }
    }

    /// Writes all of `buffer`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        guard writeAll(fd, buffer) else { throw ImageCoreError.cacheIO("cannot write", path: path, errno: errno) }
    }

    /// Writes all of `buffer`, retrying short writes and EINTR; false on an
    /// error (errno says which). The corresponding C function is `write`.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = retryingInterrupts { write(fd, buffer.baseAddress! + done, buffer.count - done) }
            if n < 0 { return false }
            done += n
        }
        return true
    }

    /// Renames atomically within one file system; with `creatingDirectory`,
    /// creates the target's directory if it is missing (a shard removed by
    /// `purge`) and tries once more.
    static func rename(_ from: String, to: String, creatingDirectory: Bool = false) throws {
        if ImageCore.rename(from, to) == 0 { return }
        if creatingDirectory && errno == ENOENT && access(from, F_OK) == 0 {
            try makeDirectories(String(to[..<(to.lastIndex(of: "/") ?? to.endIndex)]))
            if ImageCore.rename(from, to) == 0 { return }
        }
        let code = errno
        unlink(from)
        throw ImageCoreError.cacheIO("cannot rename to", path: to, errno: code)
    }

    /// Removes a file; a missing file is not an error. Returns whether it existed.
    @discardableResult
    static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw ImageCoreError.cacheIO("cannot remove", path: path, errno: errno)
    }

    /// Creates a directory and its parents with `mode`; existing ones are fine.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw ImageCoreError.cacheIO("cannot create directory", path: path, errno: errno) }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty && parent != path { try makeDirectories(parent, mode: mode) }
        guard mkdir(path, mode) == 0 || errno == EEXIST else {
            throw ImageCoreError.cacheIO("cannot create directory", path: path, errno: errno)
        }
    }

    /// Size and modification time of a file, or nil if it does not exist.
    static func status(_ path: String) -> (size: Int, modified: Double)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Whether `path` is a directory (not following a symbolic link).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Sets a file's modification time to now: how "last used" is recorded,
    /// since atime is unreliable (noatime, relatime mounts).
    static func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }

    /// Names in a directory, without "." and "..". Empty if it does not exist.
    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        // glibc sizes each record by its name's length, so the last one in a
        // buffer can end before `sizeof(dirent)`: read the name through a
        // pointer, never by copying `entry.pointee`.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a directory and everything below it.
    static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { try removeTree("\(path)/\(name)") }
            guard rmdir(path) == 0 || errno == ENOENT else {
                throw ImageCoreError.cacheIO("cannot remove", path: path, errno: errno)
            }
        } else {
            try remove(path)
        }
    }
}
