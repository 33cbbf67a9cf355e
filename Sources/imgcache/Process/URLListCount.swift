import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// Counts the URLs in a list that is a regular file, in one cheap pass with
/// `pread` (the descriptor's offset is left alone), so the progress bar of a
/// prefetch can show a total and an ETA from the start. Pipes cannot be
/// rewound: their total is known only when input ends. For `prefetch`
/// (package access).
enum URLListCount {
    /// URL lines (not blank, not `#` comments) in `fd`, or nil if it is not a regular file.
    static func count(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset = off_t(lseek(fd, 0, SEEK_CUR))
        var urls = 0
        var atLineStart = true
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                POSIXFile.retryingInterrupts { pread(fd, buffer.baseAddress!, buffer.count, offset) }
            }
            guard count > 0 else { break }
            offset += off_t(count)
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") {
                    atLineStart = true
                } else if atLineStart && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t")
                    && byte != UInt8(ascii: "\r")
                {
                    atLineStart = false
                    if byte != UInt8(ascii: "#") { urls += 1 }
                }
            }
        }
        return urls
    }
}
