#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strerror` for an errno value, e.g. "No space left on device".
func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}
