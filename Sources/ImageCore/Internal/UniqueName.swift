#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names for temporary files that say which process made them, so a stale
/// one can be told from a live one.
enum UniqueName {
    /// "<pid>-<random>", unique across processes and calls.
    static func make() -> String {
        "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }
}
