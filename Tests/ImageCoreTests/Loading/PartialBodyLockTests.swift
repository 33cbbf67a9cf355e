import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// A finished body stays at its shared partial name, locked, until it is
/// renamed into the cache: the lock must hold until then, and a process
/// that opened the name before that rename must not write into the entry.
@Suite struct PartialBodyLockTests {
    let root = TestRunDirectory.newPath("imgcache-partial-")

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    @Test func theLockOutlivesTheTransfer() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = "\(root)/body.partial"
        let partial = try #require(PartialDownload.open(path, url: "http://127.0.0.1/a"))
        let lock = BodyLock(holding: partial.file)
        partial.file.close()  // what the transfer does as it ends: no longer its descriptor
        #expect(PartialDownload.open(path, url: "http://127.0.0.1/a") == nil, "still locked")
        lock.release()
        #expect(PartialDownload.open(path, url: "http://127.0.0.1/a") != nil, "free once released")
    }

    @Test func aFileRenamedAwayIsNoLongerTheOneAtItsName() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = "\(root)/body.partial"
        let file = try #require(try OpenFile.locked(path, waiting: false))
        #expect(file.isStill(at: path))
        try POSIXFile.rename(path, to: "\(root)/entry")
        #expect(!file.isStill(at: path), "gone from its name")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        #expect(!file.isStill(at: path), "another file has the name")
        #expect(file.isStill(at: "\(root)/entry"))
    }
}
