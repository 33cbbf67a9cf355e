import Foundation
import TestSupport
import Testing

@testable import ImageCore

@Suite struct OpenDirectoryTests {
    /// `forEachFile` hands every name over in one reused buffer: a name the
    /// caller keeps must keep its bytes while later names are read.
    @Test func keptNamesKeepTheirBytes() throws {
        let root = TestRunDirectory.newPath("imgcache-dir-")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: "\(root)/sub", withIntermediateDirectories: true)
        var expected = Set<String>()
        for index in 0..<500 {
            let name = String(repeating: "n", count: 1 + index % 70) + "\(index)"
            #expect(FileManager.default.createFile(atPath: "\(root)/\(name)", contents: nil))
            expected.insert(name)
        }
        let directory = try #require(OpenDirectory(root))
        var kept: [FileName] = []
        var seen = 0
        directory.forEachFile { name in
            seen += 1
            if seen % 3 == 0 { kept.append(name) }
        }
        #expect(seen == 500, "regular files only, not sub/")
        #expect(kept.count == 166)
        #expect(Set(kept.map(\.string)).isSubset(of: expected))
        #expect(Set(kept.map(\.string)).count == kept.count)
    }

    @Test func entryFileNamesComeFromTheirHash() throws {
        let name = FileName(Array(String(repeating: "ab", count: 32).utf8))
        let hash = try #require(EntryHash(name))
        #expect(hash.fileName(suffix: "") == name)
        #expect(hash.fileName(suffix: ".meta").string == String(repeating: "ab", count: 32) + ".meta")
    }
}
