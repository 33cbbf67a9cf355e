#if canImport(Glibc)
    import Glibc
#endif

/// Whether the dynamic loader would find a shared library, asked without
/// loading it: loading libavif or libheif costs a dozen dependencies and
/// their constructors, which a request's `Accept` header must not pay for.
enum SharedLibraryPresence {
    /// Where ld.so looks, in its order: `LD_LIBRARY_PATH`, then its cache of
    /// the configured directories (`/etc/ld.so.cache`, which names every
    /// soname it holds), then the trusted directories. The corresponding C
    /// functions are `getenv` and `access`.
    static func isInstalled(_ soname: String) -> Bool {
        let searchPath = getenv("LD_LIBRARY_PATH").map { String(cString: $0) } ?? ""
        for directory in searchPath.split(separator: ":") where access("\(directory)/\(soname)", R_OK) == 0 {
            return true
        }
        if let cache = try? POSIXFile.read("/etc/ld.so.cache", limit: 16 << 20),
            contains(cache, Array(soname.utf8) + [0])
        {
            return true
        }
        return ["/lib", "/usr/lib", "/lib64", "/usr/lib64"].contains { access("\($0)/\(soname)", R_OK) == 0 }
    }

    /// Whether `needle` occurs in `haystack`: `memchr` to each place its
    /// first byte is, then `memcmp` (Glibc's Swift module has no `memmem`).
    /// The generic `firstRange(of:)` took 78 M instructions per run (a
    /// 38 KB cache searched twice, for libavif and libjxl): 78 k per URL of
    /// a cold batch of 1000, a third of what curl spends on one.
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { wanted in
                var offset = 0
                while hay.count - offset >= wanted.count {
                    guard
                        let found = memchr(
                            hay.baseAddress! + offset, Int32(first), hay.count - offset - wanted.count + 1)
                    else { return false }
                    if memcmp(found, wanted.baseAddress!, wanted.count) == 0 { return true }
                    offset = hay.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
                }
                return false
            }
        }
    }
}
