internal import CImageCoreShims

#if canImport(Glibc)
    import Glibc
#endif

/// A file name as the directory holds it: raw bytes, compared byte by byte.
/// A scan of 100 000 entries makes one of these per file, and no `String`:
/// Unicode-aware string work on every name cost `clean` seconds.
struct FileName: Hashable, Sendable {
    /// The name's bytes followed by a NUL, ready for the C calls.
    fileprivate let terminated: [UInt8]

    fileprivate init(terminated: [UInt8]) { self.terminated = terminated }

    /// A name made of `bytes` (ASCII, no NUL).
    init(_ bytes: [UInt8]) { terminated = bytes + [0] }

    /// The name's length in bytes.
    var count: Int { terminated.count - 1 }

    /// The name's bytes, without the NUL.
    var bytes: ArraySlice<UInt8> { terminated.dropLast() }

    /// Calls `body` with the name as a NUL-terminated C string.
    fileprivate func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        terminated.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
    }

    /// The first 64 bytes of a name, as eight words (native byte order).
    typealias Stem = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    /// The name's first 64 bytes if the name ends there or a dot follows
    /// them (an entry file's key hash), loaded as words rather than compared
    /// byte by byte.
    func stem() -> Stem? {
        guard count >= 64, terminated[64] == UInt8(ascii: ".") || terminated[64] == 0 else { return nil }
        return terminated.withUnsafeBytes { raw in
            func word(_ index: Int) -> UInt64 { raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
            return (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
        }
    }
    /// The name as text, for paths and messages.
    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the name ends with `suffix` (ASCII).
    func hasSuffix(_ suffix: StaticString) -> Bool {
        let tail = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        return count >= tail.count && bytes.suffix(tail.count).elementsEqual(tail)
    }

    /// Whether `infix` occurs in the name at byte `offset` (ASCII).
    func hasPrefix(_ infix: StaticString, at offset: Int) -> Bool {
        let needle = UnsafeBufferPointer(start: infix.utf8Start, count: infix.utf8CodeUnitCount)
        guard count >= offset + needle.count else { return false }
        return terminated[offset..<(offset + needle.count)].elementsEqual(needle)
    }
}

extension FileName {
    /// Whether two stems hold the same bytes.
    static func stemsEqual(_ a: Stem, _ b: Stem) -> Bool {
        a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3 && a.4 == b.4 && a.5 == b.5 && a.6 == b.6 && a.7 == b.7
    }

    /// The stem of the NUL-terminated name at `name`, at least 64 bytes
    /// long (`stem()`).
    static func stem(_ name: UnsafePointer<UInt8>) -> Stem? {
        guard name[64] == UInt8(ascii: ".") || name[64] == 0 else { return nil }
        let raw = UnsafeRawPointer(name)
        func word(_ index: Int) -> UInt64 { raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        return (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
    }

    /// A stem's bytes as text.
    static func stemText(_ stem: Stem) -> String {
        withUnsafeBytes(of: stem) { String(decoding: $0, as: UTF8.self) }
    }
}

/// A file name as `getdents64` hands it over, borrowed from the buffer it
/// filled: valid only inside the `OpenDirectory.forEachEntry` call that
/// gives it. A scan tests and stats names in place and copies only those it
/// keeps (`fileName`): 100 000 copies into arrays, and their releases, were
/// a quarter of `clean`'s own instructions.
struct DirectoryEntryName {
    /// The name's bytes, followed by a NUL.
    fileprivate let start: UnsafePointer<UInt8>
    /// The name's length in bytes.
    let count: Int

    /// The name, copied.
    var fileName: FileName { FileName(terminated: Array(UnsafeBufferPointer(start: start, count: count + 1))) }

    /// `FileName.stem()` of this name.
    func stem() -> FileName.Stem? { count >= 64 ? FileName.stem(start) : nil }

    /// Whether the name ends with `suffix` (ASCII).
    func hasSuffix(_ suffix: StaticString) -> Bool {
        let tail = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        return count >= tail.count
            && UnsafeBufferPointer(start: start + count - tail.count, count: tail.count)
                .elementsEqual(tail)
    }
}

/// A directory held open: its regular files' names read in one pass, and
/// calls relative to it (`fstatat`, `unlinkat`), so the kernel does not walk
/// the whole path again for every file, as `find` does not.
final class OpenDirectory {
    /// The path it was opened at, for error messages and full paths.
    let path: String
    private let descriptor: Int32
    /// Whether a pass has moved the descriptor's offset from the start.
    private var wasRead = false

    /// Opens `path`; nil if it is not a directory that can be read.
    init?(_ path: String) {
        let fd = POSIXFile.retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        self.path = path
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The names of the regular files (and of those whose type the file
    /// system does not report), in directory order.
    func fileNames() -> [FileName] {
        var names: [FileName] = []
        forEachFile { names.append($0) }
        return names
    }

    /// Calls `body` with each regular file's name (and each whose type the
    /// file system does not report), in directory order, as a `FileName`
    /// of its own.
    func forEachFile(_ body: (FileName) -> Void) {
        forEachEntry { body($0.fileName) }
    }

    /// Calls `body` with each regular file's name (and each whose type the
    /// file system does not report), in directory order, borrowed from the
    /// buffer the kernel filled: nothing is allocated per file. Records are
    /// read straight from `getdents64` into one 32 KiB buffer: glibc's
    /// `readdir` (a lock taken per name) and a `strlen`
    /// per name were 64 of a 100 000-entry clean's 264 instructions per
    /// entry (callgrind). A 1 MiB buffer made 16 calls instead of 275 for
    /// 100 000 names, in the same kernel time: not taken.
    /// The corresponding C function is `getdents64`.
    func forEachEntry(_ body: (DirectoryEntryName) -> Void) {
        // A second pass starts from the directory's beginning again.
        if wasRead { _ = lseek(descriptor, 0, SEEK_SET) }
        wasRead = true
        let size = 32_768
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        // struct dirent64: d_ino (8 bytes), d_off (8), d_reclen (2),
        // d_type (1), then the name, NUL-terminated, padded to 8 bytes.
        let (lengthOffset, typeOffset, nameOffset) = (16, 18, 19)
        let (regular, unknown) = (UInt8(DT_REG), UInt8(DT_UNKNOWN))
        while true {
            let filled = POSIXFile.retryingInterrupts { imgcache_getdents64(descriptor, buffer, size) }
            guard filled > 0 else { return }
            var offset = 0
            while offset < filled {
                let record = buffer + offset
                let length = Int(record.loadUnaligned(fromByteOffset: lengthOffset, as: UInt16.self))
                offset += length
                let type = record.load(fromByteOffset: typeOffset, as: UInt8.self)
                guard type == regular || type == unknown else { continue }
                // The kernel pads a record by at most 7 bytes after the
                // name's NUL, so the NUL is in the record's last 8 bytes:
                // looked for there, not from the name's start.
                let name = (record + nameOffset).assumingMemoryBound(to: UInt8.self)
                var count = max(0, length - nameOffset - 8)
                while name[count] != 0 { count += 1 }
                body(DirectoryEntryName(start: name, count: count))
            }
        }
    }

    /// How many bytes the directory itself takes (`st_size`): on ext4 and
    /// XFS, a little more than 64 for each 64-character name it holds, so
    /// a scan can size its arrays once. The corresponding C function is `fstat`.
    func sizeInBytes() -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Size and modification time of the regular file `name`; nil if it is
    /// gone or not a regular file. The corresponding C function is `fstatat`.
    func status(_ name: FileName) -> (size: Int, modified: Double)? {
        name.terminated.withUnsafeBufferPointer { Self.status(in: descriptor, $0.baseAddress!) }
    }

    /// `fstatat` of the NUL-terminated `name` in `directory`. The file type
    /// bits are constants here: Glibc's `S_IFMT` and `S_IFREG` are calls.
    private static func status(in directory: Int32, _ name: UnsafePointer<UInt8>) -> (size: Int, modified: Double)? {
        var info = stat()
        let found = name.withMemoryRebound(to: CChar.self, capacity: 1) {
            fstatat(directory, $0, &info, AT_SYMLINK_NOFOLLOW)
        }
        guard found == 0, info.st_mode & 0o170_000 == 0o100_000 else { return nil }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// `status` of a name being read (`forEachEntry`).
    func status(_ name: DirectoryEntryName) -> (size: Int, modified: Double)? {
        Self.status(in: descriptor, name.start)
    }

    /// Removes the file `name`; a missing file is not an error. The
    /// corresponding C function is `unlinkat`.
    func remove(_ name: FileName) {
        _ = name.withCString { unlinkat(descriptor, $0, 0) }
    }

    /// Removes the file named by `stem` and `suffix` (`<hash>`,
    /// `<hash>.meta`), the name made on the stack: making it as a
    /// `FileName` (two arrays) cost an expired entry 300 instructions.
    /// The corresponding C function is `unlinkat`.
    func remove(stem: FileName.Stem, suffix: StaticString) {
        let length = suffix.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + length + 1) { name in
            withUnsafeBytes(of: stem) {
                name.baseAddress!.initialize(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 64)
            }
            (name.baseAddress! + 64).initialize(from: suffix.utf8Start, count: length)
            name[64 + length] = 0
            _ = name.withMemoryRebound(to: CChar.self) { unlinkat(descriptor, $0.baseAddress!, 0) }
        }
    }

    /// The full path of `name`.
    func path(of name: FileName) -> String { "\(path)/\(name.string)" }
}
