#if canImport(Glibc)
    import Glibc
#endif

/// What this process may do with a path, and handing back a descriptor.
extension POSIXFile {
    /// Whether `path` (links followed) is a directory this process may list
    /// and enter. The corresponding C functions are `stat` and `access`.
    static func isReadableDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access(path, R_OK | X_OK) == 0
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
