#if canImport(Glibc)
    import Glibc
#endif

extension Array where Element == UInt8 {
    /// The index of the first `byte` at or after `start`, or nil. libc's
    /// `memchr` compares a vector at a time: JPEG's entropy-coded data is
    /// most of the file, and walking it a byte at a time was a twentieth of
    /// a cold download's CPU time.
    package func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        guard start < count else { return nil }
        return withUnsafeBytes { raw in
            guard let found = memchr(raw.baseAddress! + start, Int32(byte), count - start) else { return nil }
            return raw.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
    }
}
