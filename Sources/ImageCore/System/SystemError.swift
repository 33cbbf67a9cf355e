#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strerror` for an errno value, e.g. "No space left on device".
package func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension ImageCoreError {
    /// A cache read or write failed; `errno` names the cause. Here, not in
    /// `Model/`, which refers to nothing else in ImageCore.
    static func cacheIO(_ what: String, path: String, errno code: Int32) -> ImageCoreError {
        ImageCoreError(.cacheIO, "\(what) \(path): \(systemErrorMessage(code))")
    }
}
