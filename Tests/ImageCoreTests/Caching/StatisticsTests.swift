import Foundation
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
}
