#if canImport(Glibc)
    import Glibc
#endif

/// What this process may do with a path, and handing back a descriptor.
extension POSIXFile {
    /// Why `path` (links followed) is not a directory this process may list
    /// and enter (and, with `writing`, write in): the errno `stat` or
    /// `access` gave (ENOENT: missing), ENOTDIR for another kind of file, or
    /// 0 when it is one. The corresponding C functions are `stat` and `access`.
    static func directoryAccessError(_ path: String, writing: Bool) -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return ENOTDIR }
        return access(path, R_OK | X_OK | (writing ? W_OK : 0)) == 0 ? 0 : errno
    }

    /// Why this process may not write in `path`: the errno `access` gave, or
    /// 0 when it may. The corresponding C function is `access`.
    static func writeDenial(_ path: String) -> Int32 {
        access(path, W_OK) == 0 ? 0 : errno
    }

    /// Closes a descriptor taken over from an `OpenFile` (`takeDescriptor`).
    /// The corresponding C function is `close`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}

/// The running process.
enum CurrentProcess {
    /// Its id. The corresponding C function is `getpid`.
    static var id: Int32 { getpid() }
}
