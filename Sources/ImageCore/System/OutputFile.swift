#if canImport(Glibc)
    import Glibc
#endif

/// Writes the command line's output files (`fetch -o`, `--output-dir`)
/// atomically: a temporary file beside the target, then a rename, so a
/// reader never sees half an image (and a file already holding the bytes
/// is only touched). A target that exists and is not a regular file
/// (`/dev/null`, a FIFO, a symbolic link) is written through instead:
/// renaming over it would replace the device or the link itself. Failures
/// are `.output` errors ("write error: PATH: reason", exit 23 as in curl),
/// not cache errors. Here, with the library's other system calls, for the
/// executable (`package`): a bare descriptor rather than an `OpenFile`,
/// because `fetch -o` on the warm-hit path allocates nothing it does not need.
package enum OutputFile {
    /// A function that writes one piece of output.
    package typealias Writer = (UnsafeRawBufferPointer) throws -> Void

    /// Writes `bytes` to `path`. A regular file that already holds exactly
    /// these bytes (a script fetching the same image again) only has its
    /// modification time set, as a rewrite would: replacing it would cost
    /// a new file, which on a busy file system is the dearest part of a
    /// warm hit.
    package static func write(_ bytes: [UInt8], to path: String) throws {
        let existing = status(path)
        if let existing, (existing.st_mode & S_IFMT) == S_IFREG, Int(existing.st_size) == bytes.count,
            let held = try? POSIXFile.read(path, limit: bytes.count), same(held, bytes),
            utimensat(AT_FDCWD, path, nil, 0) == 0
        {
            return
        }
        try write(to: path, existing: existing) { write in try bytes.withUnsafeBytes { try write($0) } }
    }

    /// Writes what `produce` hands to its `write` function piece by piece
    /// (streamed pixels), with the same atomicity: a failure part-way, in
    /// `produce` or in writing, leaves no file behind.
    package static func write(to path: String, producing produce: (_ write: @escaping Writer) throws -> Void) throws {
        try write(to: path, existing: status(path), producing: produce)
    }

    /// Whether two byte arrays are equal, by `memcmp`: `Array.==` compares
    /// element by element, 7 instructions a byte, 0.6 M for a 90 KB image
    /// (callgrind), a tenth of a warm hit's whole run.
    private static func same(_ one: [UInt8], _ other: [UInt8]) -> Bool {
        one.count == other.count
            && one.withUnsafeBytes { first in
                other.withUnsafeBytes { second in
                    first.isEmpty || memcmp(first.baseAddress!, second.baseAddress!, first.count) == 0
                }
            }
    }

    /// What `lstat` says of `path`; nil if nothing is there.
    private static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    private static func write(
        to path: String, existing: stat?, producing produce: (_ write: @escaping Writer) throws -> Void
    ) throws {
        if let existing, (existing.st_mode & S_IFMT) != S_IFREG {
            return try writeThrough(to: path, producing: produce)
        }
        // A file the user may not write is refused, as the shell's > and
        // curl's -o refuse it: the rename below needs only the directory's
        // permission, so it would replace a read-only file.
        if existing != nil, access(path, W_OK) != 0 {
            throw outputError("cannot write", path, errno)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let temporary = "\(directory)/.imgcache-\(UniqueName.make()).tmp"
        let fd = POSIXFile.retryingInterrupts { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw outputError("cannot create", path, errno) }
        // The file it replaces keeps its permissions, as curl's -o and the
        // shell's > keep them by writing in place: a private 0600 file
        // became 0644 (the new file's mode less the umask). Best effort: a
        // file system without modes keeps what it has.
        if let existing { _ = fchmod(fd, existing.st_mode & 0o7777) }
        do {
            try produce(writer(fd, path))
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        // A file system that defers its errors (NFS, a full quota) reports them at close.
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw outputError("write error:", path, code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw outputError("cannot write", path, code)
        }
    }

    /// Creates `path` and any missing parents (mode 0777 less the umask), as
    /// `wget -P` and `curl --create-dirs` do; an existing directory is fine.
    package static func makeDirectory(_ path: String) throws {
        do {
            try POSIXFile.makeDirectories(path, mode: 0o777)
        } catch let error as ImageCoreError {
            throw ImageCoreError(.output, error.message)
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw outputError("cannot use directory", path, ENOTDIR)
        }
    }

    /// Why a file at `path` could not be written (it exists and is not
    /// writable, or its directory is missing or not writable), as
    /// "PATH: cause"; nil if it could. The corresponding C function is `access`.
    package static func unwritableReason(_ path: String) -> String? {
        if access(path, F_OK) == 0 {
            return access(path, W_OK) == 0 ? nil : "\(path): \(systemErrorMessage(errno))"
        }
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        return access(directory, W_OK | X_OK) == 0 ? nil : "\(directory): \(systemErrorMessage(errno))"
    }

    /// `name` inside `directory`, with one slash between them however `directory` ends.
    package static func path(_ name: String, in directory: String) -> String {
        var directory = Substring(directory)
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory == "/" ? "/\(name)" : "\(directory)/\(name)"
    }

    private static func writer(_ fd: Int32, _ path: String) -> Writer {
        { buffer in
            guard POSIXFile.writeAll(fd, buffer) else { throw outputError("write error:", path, errno) }
        }
    }

    /// `O_CREAT`: a symbolic link whose target does not exist yet makes
    /// that target, as the shell's `>` and curl's `-o` do.
    private static func writeThrough(
        to path: String, producing produce: (_ write: @escaping Writer) throws -> Void
    ) throws {
        let fd = POSIXFile.retryingInterrupts { open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw outputError("cannot open", path, errno) }
        defer { close(fd) }
        try produce(writer(fd, path))
    }

    private static func outputError(_ what: String, _ path: String, _ code: Int32) -> ImageCoreError {
        ImageCoreError(.output, "\(what) \(path): \(systemErrorMessage(code))")
    }
}
