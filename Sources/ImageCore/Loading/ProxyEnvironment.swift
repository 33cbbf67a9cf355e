#if canImport(Glibc)
    import Glibc
#endif

/// The proxy a run's environment names, read once a run for libcurl, which
/// otherwise reads it at every transfer whose request names no proxy: five
/// `getenv` a URL (`no_proxy`, `NO_PROXY`, the scheme's variable, `all_proxy`,
/// `ALL_PROXY`), 1.5 k instructions (callgrind, `scripts/bench-counts.sh cold`).
enum ProxyEnvironment {
    /// The variables libcurl 7.88 takes a proxy from, for the schemes
    /// imgcache downloads (a redirect may go from http to https): `http_proxy`
    /// in lower case only (a CGI request's `Proxy:` header sets
    /// `HTTP_PROXY`), `https_proxy` or else `HTTPS_PROXY`, and `all_proxy` or
    /// else `ALL_PROXY`. `no_proxy` only exempts hosts from those.
    static let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// `""` (no proxy) when none of `names` has a value, as libcurl reads
    /// them (an empty one is unset: `curl_getenv`); nil when one has, and
    /// libcurl is left to read them, `no_proxy` with them. Given as
    /// `CURLOPT_PROXY` with an empty `CURLOPT_NOPROXY`, it says what libcurl
    /// would have found, and libcurl reads no variable.
    static func proxyUnlessNamed() -> String? {
        names.contains { name in getenv(name).map { $0.pointee != 0 } ?? false } ? nil : ""
    }
}
