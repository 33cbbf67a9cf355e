import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `ImageInfo.frameDurations` (`--json`'s `delays_ms`), read by each format's
/// header walk, against each format's own reference tool (or, for APNG, the
/// `fcTL` chunks' bytes), and equal to the durations the full decode gives.
struct FrameDelayTests {
    /// The durations the header walk reads, checked against the decode's.
    func walked(_ bytes: [UInt8]) throws -> [Int] {
        let info = try ImageDecoder().inspect(bytes)
        let decoded = try ImageDecoder().decode(bytes, frame: nil)
        #expect(
            info.frameDurations == decoded.frames.map(\.durationMilliseconds), "the header walk and decode differ")
        #expect(info.frameDurations.count == info.frameCount)
        return info.frameDurations
    }

    /// `gifsicle --info`'s delays ("disposal background delay 0.37s"; none printed for 0), per image.
    func gifsicle(_ path: String) throws -> [Int] {
        let text = String(decoding: try Shell.output("gifsicle --info '\(path)'"), as: UTF8.self)
        var delays: [Int] = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.starts(with: ["+", "image"]) { delays.append(0) }
            if let at = words.firstIndex(of: "delay"), at + 1 < words.count, !delays.isEmpty,
                let seconds = Double(words[at + 1].dropLast())
            {
                delays[delays.count - 1] = Int((seconds * 1000).rounded())
            }
        }
        return delays
    }

    /// `webpmux -info`'s duration column, per frame.
    func webpmux(_ path: String) throws -> [Int] {
        let text = String(decoding: try Shell.output("webpmux -info '\(path)'"), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        guard let header = lines.first(where: { $0.first == "No.:" }), let column = header.firstIndex(of: "duration")
        else { return [] }
        // Each frame's row starts "N:" and has the header's columns (less the "No.:" label's offset: none).
        return lines.filter { $0.first?.hasSuffix(":") == true && Int($0[0].dropLast()) != nil }.compactMap {
            Int($0[column])
        }
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing))
    func gifDelaysAreGifsiclesAndTheManifests() throws {
        for row in Corpus.manifest("MANIFEST.tsv") where row["format"] == "GIF" && row["frames"] != "1" {
            let file = try #require(row["file"])
            let path = try #require(Corpus.directory).appendingPathComponent("images/\(file)").path
            let delays = try walked(try Corpus.bytes("images/\(file)"))
            #expect(delays == (try gifsicle(path)), "\(file)")
            #expect(delays.map(String.init).joined(separator: ",") == row["durations_ms"], "\(file)")
        }
        let fixture = Fixtures.directory.appendingPathComponent("anim3.gif").path
        #expect(try walked(Fixtures.bytes("anim3.gif")) == (try gifsicle(fixture)))
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing))
    func webpDurationsAreWebpmuxsAndTheManifests() throws {
        for row in Corpus.manifest("MANIFEST.tsv") where row["format"] == "WebP" && row["frames"] != "1" {
            let file = try #require(row["file"])
            let path = try #require(Corpus.directory).appendingPathComponent("images/\(file)").path
            let delays = try walked(try Corpus.bytes("images/\(file)"))
            let reference = try webpmux(path)
            #expect(!delays.isEmpty && delays == reference, "\(file)")
            #expect(delays.map(String.init).joined(separator: ",") == row["durations_ms"], "\(file)")
        }
        let fixture = Fixtures.directory.appendingPathComponent("anim3.webp").path
        #expect(try walked(Fixtures.bytes("anim3.webp")) == (try webpmux(fixture)))
    }

    /// Each `fcTL`'s delay_num / delay_den (a zero denominator is 1/100 s), read from the file's bytes.
    func fcTLDelays(_ bytes: [UInt8]) -> [Int] {
        var delays: [Int] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if Array(bytes[offset + 4..<offset + 8]) == Array("fcTL".utf8) {
                let data = offset + 8
                let numerator = Int(bytes[data + 20]) << 8 | Int(bytes[data + 21])
                let stored = Int(bytes[data + 22]) << 8 | Int(bytes[data + 23])
                let denominator = stored == 0 ? 100 : stored
                delays.append(Int((Double(numerator) * 1000 / Double(denominator)).rounded()))
            }
            offset += 12 + length
        }
        return delays
    }

    @Test(arguments: ["apng-ops.png", "apng-palette.png", "apng-hidden-default.png"])
    func apngDelaysAreTheFcTLChunks(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        let delays = try walked(bytes)
        let reference = fcTLDelays(bytes)
        #expect(!delays.isEmpty && delays == reference)
    }

    @Test
    func avifSequenceDurationsAreAvifdecs() throws {
        let path = Fixtures.directory.appendingPathComponent("avif-sequence.avif").path
        let text = String(decoding: try Shell.output("avifdec --info '\(path)'"), as: UTF8.self)
        // " * 1000 timescales per second, …" then "[duration 0.10 (100 timescales)]" per frame.
        let scale = try #require(
            text.split(separator: "\n").lazy.compactMap { line -> Double? in
                guard let range = line.range(of: " timescales per second") else { return nil }
                return Double(line[..<range.lowerBound].split(separator: " ").last ?? "")
            }.first)
        let expected = text.split(separator: "\n").compactMap { line -> Int? in
            guard let start = line.range(of: "[duration ") else { return nil }
            let inner = line[start.upperBound...].drop { $0 != "(" }.dropFirst().prefix { $0 != " " }
            return Double(inner).map { Int(($0 * 1000 / scale).rounded()) }
        }
        #expect(expected.count == 3)
        #expect(try walked(Fixtures.bytes("avif-sequence.avif")) == expected)
    }

    @Test(.enabled(if: JXLSamples.missingTools == nil, Comment(rawValue: JXLSamples.missingTools ?? "")))
    func jxlDurationsAreJxlinfos() throws {
        let text = String(
            decoding: try Shell.output("jxlinfo '\(JXLSamples.directory)/animation.jxl'"), as: UTF8.self)
        let expected = text.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "duration: ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0 != " " }).map { Int($0.rounded()) }
        }
        #expect(expected == [100, 250, 400])
        #expect(try walked(JXLSamples.bytes("animation.jxl")) == expected)
    }

    @Test func stillImagesHaveNone() throws {
        for name in ["rgba.png", "avif-still.avif"] {
            #expect(try ImageDecoder().inspect(Fixtures.bytes(name)).frameDurations.isEmpty, "\(name)")
        }
    }

    @Test func recordsKeepThemAsRuns() throws {
        #expect(DurationRuns.text([100, 100, 100, 50, 0, 0]) == "100*3,50,0*2")
        #expect(DurationRuns.text([]) == nil)
        #expect(DurationRuns.durations("100*3,50,0*2", frames: 6) == [100, 100, 100, 50, 0, 0])
        // A count that is not the frame count, or a malformed run, reads as none.
        #expect(DurationRuns.durations("100*3", frames: 2) == nil)
        #expect(DurationRuns.durations("100*3", frames: 4) == nil)
        #expect(DurationRuns.durations("100*0", frames: 0) == nil)
        #expect(DurationRuns.durations("-1", frames: 1) == nil)
        #expect(DurationRuns.durations("1*1*1", frames: 1) == nil)
        #expect(DurationRuns.durations("5*9999999999999", frames: 1 << 30) == nil)
        for malformed in ["", "5,", ",5", "5*", "*5", "5,,5", "x", "5*x"] {
            #expect(DurationRuns.durations(malformed, frames: 2) == nil, "\(malformed)")
        }
        #expect(DurationRuns.durations("7", frames: 1) == [7])
        #expect(DurationRuns.durations("+7*2", frames: 2) == [7, 7])
        // Too long to keep: 200 different delays.
        #expect(DurationRuns.text(Array(1000..<1200)) == nil)
        var entry = CacheEntry(
            key: "k", url: "http://127.0.0.1/a.gif",
            info: ImageInfo(
                format: .gif, width: 1, height: 1, frameCount: 4, loopCount: 0, frameDurations: [20, 20, 370, 0]),
            byteCount: 1, checksum: String(repeating: "0", count: 32), storedAt: 1, dataFileName: "d")
        #expect(CacheEntry(parsing: entry.serialized()) == entry)
        entry.info.frameDurations = Array(1000..<1004).map { $0 * 1000 }
        #expect(CacheEntry(parsing: entry.serialized())?.info.frameDurations == entry.info.frameDurations)
    }
}
