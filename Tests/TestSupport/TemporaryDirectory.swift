import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A unique temporary directory, removed at deinit: keep the object for as
/// long as the directory is used (`cacheDir: try TemporaryDirectory().path`
/// removes it at once, and the process run on it makes a cache there that
/// nothing removes).
package final class TemporaryDirectory: Sendable {
    /// Its absolute path.
    package let path: String

    package init() throws {
        path = NSTemporaryDirectory() + "imgcache-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
