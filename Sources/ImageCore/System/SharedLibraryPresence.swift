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
            cache.firstRange(of: Array(soname.utf8) + [0]) != nil
        {
            return true
        }
        return ["/lib", "/usr/lib", "/lib64", "/usr/lib64"].contains { access("\($0)/\(soname)", R_OK) == 0 }
    }
}
