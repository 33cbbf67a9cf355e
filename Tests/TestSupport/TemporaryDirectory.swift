import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A unique temporary directory, removed at deinit.
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
