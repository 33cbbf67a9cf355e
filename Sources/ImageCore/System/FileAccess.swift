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

    /// The home directory the password database gives this process's user
    /// (as Python's `os.path.expanduser` falls back to when `HOME` is
    /// unset), or nil if there is none. The corresponding C functions are
    /// `getuid` and `getpwuid_r`.
    static var userHomeDirectory: String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(platformCString: directory)
        return home.isEmpty ? nil : home
    }
}
