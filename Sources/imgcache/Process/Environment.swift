import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process environment, read without Foundation, each byte that is not
/// UTF-8 kept (`String(platformBytes:)`: `IMGCACHE_DIR`, `HOME` and the
/// working directory are paths). For the command line (package access).
enum Environment {
    /// All environment variables.
    static var variables: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(platformCString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// One environment variable's value (`getenv`). Where only one is read:
    /// `variables` builds a dictionary of them all, and the first of its
    /// kind costs a search of the binary's protocol conformances, 0.57 M
    /// instructions, more than a third of a warm hit's (callgrind).
    static func value(of name: String) -> String? {
        getenv(name).map { String(platformCString: $0) }
    }

    /// `path` made absolute against the working directory.
    static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        // On the stack and not zeroed: an array of PATH_MAX zeros was 5 k
        // instructions of a warm hit each time (`-o` and `--cache-dir`).
        let cwd = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX) + 1) { buffer in
            getcwd(buffer.baseAddress!, buffer.count).map { String(platformCString: $0) }
        }
        guard let cwd else { return path }
        return cwd == "/" ? "/\(path)" : "\(cwd)/\(path)"
    }
}
