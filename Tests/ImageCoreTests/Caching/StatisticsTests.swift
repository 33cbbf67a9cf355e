import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

@Suite struct StatisticsTests {
    @Test func flushesAddUpAcrossProcessesAndRuns() throws {
        let temporary = try TemporaryDirectory()
        let directory = CacheDirectory(root: temporary.path)
        try FileManager.default.createDirectory(atPath: directory.stats, withIntermediateDirectories: true)
        for _ in 0..<2 {
            let statistics = Statistics()
            statistics.add(.diskHits)
            statistics.add(.bytesDownloaded, 1000)
            statistics.add(.bytesDownloaded, 24)
            #expect(statistics.snapshot == [.diskHits: 1, .bytesDownloaded: 1024])
            try statistics.flush(to: directory)
            #expect(statistics.snapshot.isEmpty)
        }
        let totals = Statistics.totals(in: directory)
        #expect(totals[.diskHits] == 2)
        #expect(totals[.bytesDownloaded] == 2048)
        #expect(totals[.misses] == 0)
    }

    /// A shard's names and numbers are read from its bytes as `Counter(rawValue:)`
    /// and `Int(String)` read them: a name that is another's prefix or has
    /// more letters, a number with a sign, too large or not a number.
    @Test func aShardsNamesAndNumbersAreReadAsTheStringsWouldBe() {
        let text = """
            misses +5
            downloads -3
            failures 99999999999999999999
            evictions 12x
            memory-hitsx 4
            memory-hit 4
            disk-hits -
            remote-uploads 9223372036854775807
            remote-errors -9223372036854775808
            corrupt-entries 007
            bytes-downloaded 10 extra

            """
        #expect(
            Statistics.parse(Array(text.utf8)) == [
                .misses: 5, .downloads: -3, .remoteUploads: Int.max, .remoteErrors: Int.min, .corruptEntries: 7,
            ])
    }

    /// A run that asked no remote storage (every warm hit) keeps the shard's
    /// per-storage lines as they were, and drops what does not parse.
    @Test func aFlushWithoutRemoteCountsKeepsEachStoragesLines() throws {
        let temporary = try TemporaryDirectory()
        let directory = CacheDirectory(root: temporary.path)
        try FileManager.default.createDirectory(atPath: directory.stats, withIntermediateDirectories: true)
        let shard = "\(directory.stats)/\(Int(getpid()) % 16)"
        try Data(
            "disk-hits 5\nremote-hits redis://a 3\nremote-hits  redis://b  4\nwords that do not parse\nremote-misses redis://a x\n"
                .utf8
        ).write(to: URL(fileURLWithPath: shard))

        let statistics = Statistics()
        statistics.add(.diskHits)
        try statistics.flush(to: directory)

        #expect(Statistics.totals(in: directory)[.diskHits] == 6)
        #expect(
            Statistics.storageTotals(in: directory) == ["redis://a": [.remoteHits: 3], "redis://b": [.remoteHits: 4]])
        let text = try String(contentsOfFile: shard, encoding: .utf8)
        #expect(!text.contains("parse") && !text.contains(" x"))

        let remote = Statistics()
        remote.add(.remoteHits, storage: "redis://a", 2)
        try remote.flush(to: directory)
        #expect(
            Statistics.storageTotals(in: directory) == ["redis://a": [.remoteHits: 5], "redis://b": [.remoteHits: 4]])
        #expect(Statistics.totals(in: directory)[.remoteHits] == 2)
    }

    /// A flush writes over the shard's old text rather than emptying it first,
    /// so a shorter new text (junk dropped) must leave none of the old behind.
    @Test func aShorterShardLeavesNoOldTextBehind() throws {
        let temporary = try TemporaryDirectory()
        let directory = CacheDirectory(root: temporary.path)
        try FileManager.default.createDirectory(atPath: directory.stats, withIntermediateDirectories: true)
        let shard = "\(directory.stats)/\(Int(getpid()) % 16)"
        try Data(("disk-hits 5\n" + String(repeating: "junk ", count: 200) + "\n").utf8)
            .write(to: URL(fileURLWithPath: shard))

        let statistics = Statistics()
        statistics.add(.misses)
        try statistics.flush(to: directory)

        let expected = Statistics.Counter.allCases.map { counter in
            "\(counter.rawValue) \(counter == .diskHits ? 5 : counter == .misses ? 1 : 0)\n"
        }.joined()
        #expect(try String(contentsOfFile: shard, encoding: .utf8) == expected)
    }

    /// `stat` reads a shard under the shared lock: a flush holding the
    /// exclusive one halfway through its rewrite (new text over old) is
    /// waited for, and the new text is read whole. Without it the read is
    /// answered at once from the torn text. The reader is seen waiting as a
    /// blocked request in /proc/locks (or seen done), not by time.
    @Test func statReadsAShardBeingRewrittenWhole() async throws {
        let temporary = try TemporaryDirectory()
        let directory = CacheDirectory(root: temporary.path)
        try FileManager.default.createDirectory(atPath: directory.stats, withIntermediateDirectories: true)
        let shard = "\(directory.stats)/3"
        try Data("disk-hits 9\nmisses 9\n".utf8).write(to: URL(fileURLWithPath: shard))
        var info = Glibc.stat()
        #expect(Glibc.lstat(shard, &info) == 0)
        let new = Array("disk-hits 10\nmisses 10\n".utf8)

        let writer = try #require(try OpenFile.locked(shard, waiting: true))
        try writer.write(Array(new.prefix(12)))
        let read = ReadResult()
        Thread.detachNewThread { read.set(Statistics.totals(in: directory)) }
        let settled = await waitUntil { read.value != nil || Self.aLockIsAwaited(onInode: UInt64(info.st_ino)) }
        #expect(settled)
        try writer.write(Array(new.dropFirst(12)))
        writer.close()

        #expect(await waitUntil { read.value != nil })
        #expect(read.value == [.diskHits: 10, .misses: 10], "the old text and the new, mixed")
    }

    /// Whether /proc/locks lists a blocked request (`->`) for the file whose inode is `inode`.
    private static func aLockIsAwaited(onInode inode: UInt64) -> Bool {
        guard let locks = procFileText("/proc/locks") else { return false }
        return locks.split(separator: "\n").contains { line in
            line.contains("->") && line.split(separator: " ").contains { $0.hasSuffix(":\(inode)") }
        }
    }
}

/// What a reader thread read, once it has.
private final class ReadResult: Sendable {
    private let box = Mutex<[Statistics.Counter: Int]?>(nil)
    var value: [Statistics.Counter: Int]? { box.withLock { $0 } }
    func set(_ value: [Statistics.Counter: Int]) { box.withLock { $0 = value } }
}
