internal import CImageCoreShims

#if canImport(Glibc)
    import Glibc
#endif

/// Extended attributes (`user.*`), the one place ImageCore calls
/// `getxattr`/`setxattr` and their descriptor forms. An entry's record is
/// kept in one, so an entry is one inode: creating inodes is what a cold
/// batch spends most of its system time on.
enum ExtendedAttribute {
    /// What reading an attribute found.
    enum Reading {
        /// The attribute's value.
        case value([UInt8])
        /// The file has no such attribute.
        case absent
        /// The file system keeps no `user.*` attributes (some network and
        /// FUSE file systems, tmpfs before Linux 6.6).
        case unsupported
        /// No such file.
        case missingFile
        /// Another error (EACCES, EIO), with its errno.
        case failed(Int32)
    }

    /// The largest value read: ext4 keeps at most one block per inode.
    static let maximumSize = 65536

    /// Reads attribute `name` of the file at `path`.
    static func read(_ name: String, path: String) -> Reading {
        reading { getxattr(path, name, $0, $1) }
    }

    /// Reads attribute `name` of the open file `descriptor`.
    static func read(_ name: String, descriptor: Int32) -> Reading {
        reading { fgetxattr(descriptor, name, $0, $1) }
    }

    /// Sets attribute `name` of the file at `path` to `value`.
    static func write(_ name: String, _ value: [UInt8], path: String) throws {
        let result = value.withUnsafeBytes { setxattr(path, name, $0.baseAddress, $0.count, 0) }
        if result != 0 { throw failure(errno, path: path) }
    }

    /// Sets attribute `name` of the open file `descriptor` to `value`.
    static func write(_ name: String, _ value: [UInt8], descriptor: Int32, path: String) throws {
        let result = value.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, $0.count, 0) }
        if result != 0 { throw failure(errno, path: path) }
    }

    /// A value larger than the file system keeps (ext4: about 4 KB).
    struct ValueTooLarge: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): too large for an extended attribute" }
    }

    /// ENOSPC, E2BIG or ERANGE from a write: the value does not fit.
    private static func failure(_ code: Int32, path: String) -> any Error {
        code == ENOSPC || code == E2BIG || code == ERANGE
            ? ValueTooLarge(path: path)
            : ImageCoreError.cacheIO("cannot set an extended attribute of", path: path, errno: code)
    }

    /// One read into a 4 KiB buffer, which holds any record ext4 can keep;
    /// a larger value (other file systems) is read again at its size.
    private static func reading(_ call: (UnsafeMutableRawPointer?, Int) -> Int) -> Reading {
        var capacity = 4096
        while true {
            var code: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let n = POSIXFile.retryingInterrupts { call(buffer.baseAddress, capacity) }
                code = n < 0 ? errno : 0
                count = max(n, 0)
            }
            switch code {
            case 0: return .value(bytes)
            case ENODATA: return .absent
            case ENOENT, ENOTDIR: return .missingFile
            case ENOTSUP: return .unsupported
            case ERANGE where capacity < maximumSize:
                let size = call(nil, 0)
                guard size > 0 else { return .absent }
                capacity = min(size, maximumSize)
            case ERANGE: return .absent
            default: return .failed(code)
            }
        }
    }
}
