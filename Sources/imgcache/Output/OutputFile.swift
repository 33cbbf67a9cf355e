#if canImport(Glibc)
import Glibc
#endif
import ImageCore

/// Writes user-requested output files atomically: a temporary file beside the
/// target, then a rename, so a reader never sees half an image. A target
/// that exists and is not a regular file (`/dev/null`, a FIFO, a symbolic
/// link) is written through instead: renaming over it would replace the
/// device or the link itself.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            return try writeThrough(bytes, to: path)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let temporary = "\(directory)/.imgcache-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw outputError("cannot create", path, errno) }
        let written = StandardStreams.writeAll(fd, bytes) ? 0 : errno
        close(fd)
        guard written == 0 else {
            unlink(temporary)
            throw outputError("cannot write", path, written)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw outputError("cannot write", path, code)
        }
    }

    /// Creates `path` and any missing parents (mode 0777 less the umask), as
    /// `wget -P` and `curl --create-dirs` do; an existing directory is fine.
    static func makeDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/\(component)"
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST { throw outputError("cannot create directory", prefix, errno) }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw outputError("cannot use directory", path, ENOTDIR) }
    }

    /// `name` inside `directory`, with one slash between them however `directory` ends.
    static func path(_ name: String, in directory: String) -> String {
        var directory = Substring(directory)
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory == "/" ? "/\(name)" : "\(directory)/\(name)"
    }

    private static func writeThrough(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw outputError("cannot open", path, errno) }
        defer { close(fd) }
        guard StandardStreams.writeAll(fd, bytes) else { throw outputError("cannot write", path, errno) }
    }

    private static func outputError(_ what: String, _ path: String, _ code: Int32) -> ImageCoreError {
        ImageCoreError(.failure, "\(what) \(path): \(String(cString: strerror(code)))")
    }
}
