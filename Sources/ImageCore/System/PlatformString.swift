internal import CImageCoreShims

#if canImport(Glibc)
    import Glibc
#endif

/// File names are bytes: a path on the command line or in the environment
/// may hold bytes that are not UTF-8 (`café.png` written in Latin-1 is
/// `caf\xE9.png`), and a `String` made from them the usual way holds U+FFFD
/// instead, so the file was written under another name, with no word said.
///
/// Paths stay `String`s (every layer passes them, joins and prints them as
/// before), made from the platform's bytes by `init(platformBytes:)`, which
/// keeps each byte that is not part of valid UTF-8 as one scalar of its own,
/// U+10FF00 plus the byte (U+10FF80 to U+10FFFF, private use), as Python's
/// `surrogateescape` keeps it in a lone surrogate (which a Swift `String`
/// cannot hold). A valid character in that range is kept so too, byte by
/// byte, so that every byte sequence comes back exactly: `platformBytes`
/// turns those scalars back into their bytes, and the file calls of
/// `System/` take a path through it (`withPlatformString`; the overloads
/// below). A string of UTF-8 without such scalars is unchanged both ways.
/// Shown to a person, such a byte is written `\xE9` (`escapingRawBytes`);
/// in a URL, `%E9` (`percentEncodingRawBytes`).
extension String {
    /// The first of the 128 scalars that stand for one byte each.
    private static let rawByteBase: UInt32 = 0x10_FF00

    /// The string of the platform's `bytes` (a path, an argument, an
    /// environment variable), keeping each byte that is not UTF-8.
    package init<Bytes: Collection<UInt8>>(platformBytes bytes: Bytes) {
        // The usual case costs one validation: UTF-8 with no F4 8F BE/BF.
        if let text = String(validating: bytes, as: UTF8.self), !text.mayHoldRawBytes {
            self = text
            return
        }
        // Scalar by scalar: a byte that starts no valid sequence, and each
        // byte of a valid character in the raw bytes' range, is kept alone.
        let buffer = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < buffer.count {
            let length = String.validSequenceLength(buffer, at: index)
            let sequence = buffer[index..<(index + Swift.max(length, 1))]
            index += sequence.count
            if length > 0, let scalar = String(decoding: sequence, as: UTF8.self).unicodeScalars.first,
                String.rawByte(scalar) == nil
            {
                scalars.append(scalar)
            } else {
                for byte in sequence { scalars.append(Unicode.Scalar(String.rawByteBase + UInt32(byte))!) }
            }
        }
        self = String(scalars)
    }

    /// The string of a C string from the platform (`argv`, `getenv`).
    package init(platformCString pointer: UnsafePointer<CChar>) {
        // The usual case as `String(cString:)` costs it (the standard
        // library's own validation), with no copy into an array first.
        if let text = String(validatingCString: pointer), !text.mayHoldRawBytes {
            self = text
            return
        }
        self.init(platformBytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    /// The bytes this string stands for: its UTF-8, each raw byte's scalar
    /// back as that byte.
    package var platformBytes: [UInt8] {
        guard mayHoldRawBytes else { return Array(utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let raw = Self.rawByte(scalar) {
                bytes.append(raw)
            } else {
                bytes += UTF8.encode(scalar)!
            }
        }
        return bytes
    }

    /// Calls `body` with the platform's C string of this path: its bytes
    /// as `platformBytes` gives them, then NUL.
    package func withPlatformString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard mayHoldRawBytes else { return try withCString(body) }
        let bytes = platformBytes.map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The string for a person to read: each raw byte as `\xE9`. Unchanged
    /// when it holds none.
    package var escapingRawBytes: String { replacingRawBytes { "\\x" + Self.hex($0) } }

    /// The string for a URL: each raw byte percent-encoded, `%E9`, as a
    /// browser sends a byte it has no character for (the server reads the
    /// same octet curl would send raw). Unchanged when it holds none.
    package var percentEncodingRawBytes: String { replacingRawBytes { "%" + Self.hex($0) } }

    /// Each raw byte's scalar replaced by `text(byte)`.
    package func replacingRawBytes(_ text: (UInt8) -> String) -> String {
        guard mayHoldRawBytes else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if let raw = Self.rawByte(scalar) { result += text(raw) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Whether the string may hold a raw byte's scalar (its UTF-8 has F4 8F
    /// BE or F4 8F BF): if not, its UTF-8 is its bytes.
    package var mayHoldRawBytes: Bool {
        // Every path of every file call asks: `memchr` for F4, not a loop over the view.
        utf8.withContiguousStorageIfAvailable { Self.mayHoldRawBytes(UnsafeRawBufferPointer($0)) }
            ?? Array(utf8).withUnsafeBytes { Self.mayHoldRawBytes($0) }
    }

    /// The byte a scalar stands for, if it is one of the 128.
    package static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= rawByteBase + 0x80 ? UInt8(truncatingIfNeeded: scalar.value - rawByteBase) : nil
    }

    /// Whether UTF-8 `bytes` hold F4 8F BE or F4 8F BF.
    private static func mayHoldRawBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var start = bytes.baseAddress else { return false }
        let end = start + bytes.count
        while end - start >= 3, let found = memchr(start, 0xF4, end - start - 2) {
            let next = found.load(fromByteOffset: 1, as: UInt8.self)
            let third = found.load(fromByteOffset: 2, as: UInt8.self)
            if next == 0x8F && (third == 0xBE || third == 0xBF) { return true }
            start = UnsafeRawPointer(found) + 1
        }
        return false
    }

    /// The length of the valid UTF-8 sequence at `index`, or 0 if none starts there.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            let (min, max) = offset == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= min && byte <= max else { return 0 }
        }
        return length
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

// The file calls of `System/` for a path that may hold raw bytes: a call
// with a `String` path resolves to these, an exact match, rather than to
// Glibc's, which take a pointer the compiler would make from the string's
// UTF-8 (a raw byte's scalar written as four other bytes). Each is the C
// function of its name (`stat` and `lstat` by `fstatat`, as glibc makes
// them), the path given as `withPlatformString` gives it.

@discardableResult
func open(_ path: String, _ flags: Int32) -> Int32 {
    path.withPlatformString { Glibc.open($0, flags) }
}

@discardableResult
func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    path.withPlatformString { Glibc.open($0, flags, mode) }
}

@discardableResult
func stat(_ path: String, _ info: UnsafeMutablePointer<Glibc.stat>) -> Int32 {
    path.withPlatformString { fstatat(AT_FDCWD, $0, info, 0) }
}

@discardableResult
func lstat(_ path: String, _ info: UnsafeMutablePointer<Glibc.stat>) -> Int32 {
    path.withPlatformString { fstatat(AT_FDCWD, $0, info, AT_SYMLINK_NOFOLLOW) }
}

@discardableResult
func access(_ path: String, _ mode: Int32) -> Int32 {
    path.withPlatformString { Glibc.access($0, mode) }
}

@discardableResult
func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
    path.withPlatformString { Glibc.mkdir($0, mode) }
}

@discardableResult
func rename(_ from: String, _ to: String) -> Int32 {
    from.withPlatformString { from in to.withPlatformString { Glibc.rename(from, $0) } }
}

@discardableResult
func unlink(_ path: String) -> Int32 {
    path.withPlatformString { Glibc.unlink($0) }
}

@discardableResult
func rmdir(_ path: String) -> Int32 {
    path.withPlatformString { Glibc.rmdir($0) }
}

@discardableResult
func opendir(_ path: String) -> OpaquePointer? {
    path.withPlatformString { Glibc.opendir($0) }
}

@discardableResult
func getxattr(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
    path.withPlatformString { CImageCoreShims.getxattr($0, name, value, size) }
}

@discardableResult
func setxattr(_ path: String, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32 {
    path.withPlatformString { CImageCoreShims.setxattr($0, name, value, size, flags) }
}

@discardableResult
func utimensat(_ directory: Int32, _ path: String, _ times: UnsafePointer<timespec>?, _ flags: Int32) -> Int32 {
    path.withPlatformString { Glibc.utimensat(directory, $0, times, flags) }
}
