import Foundation
import TestSupport
import Testing

@testable import ImageCore

@Suite struct POSIXFileTests {
    /// Regression: copying each `dirent` whole read past the end of glibc's
    /// buffer and crashed `clean` on a shard of a few hundred entries.
    @Test func listsLargeDirectoriesOfLongNames() throws {
        let root = TestRunDirectory.newPath("imgcache-list-")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var expected = Set<String>()
        for index in 0..<3000 {
            let name = String(repeating: "x", count: index % 90) + "-\(index).meta"
            #expect(FileManager.default.createFile(atPath: "\(root)/\(name)", contents: nil))
            expected.insert(name)
        }
        #expect(Set(POSIXFile.list(root)) == expected)
        #expect(POSIXFile.list(root + "/missing").isEmpty)
    }
}
