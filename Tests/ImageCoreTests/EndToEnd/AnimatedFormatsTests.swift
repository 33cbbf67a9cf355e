import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// AVIF and APNG through the built binary, and thumbnails of animations that
/// stay animated: frame count, durations and loop count equal the input's
/// (read back by our decoders, and by gifsicle and webpinfo where installed),
/// every frame inside the box.
@Suite(.serialized) struct AnimatedFormatsTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
        for name in ["anim3.gif", "anim3.webp", "apng-ops.png", "avif-sequence.avif", "avif-irot.avif"] {
            server.route("/\(name)", .ok(try Fixtures.bytes(name)))
        }
        for name in ["huge-ispe.avif", "apng-outside-canvas.png", "apng-bad-sequence.png", "apng-fdat-before-fctl.png"]
        {
            server.route("/bad/\(name)", .ok(try Fixtures.bytes("malformed/\(name)")))
        }
        let avif = try Fixtures.bytes("avif-sequence.avif"), apng = try Fixtures.bytes("apng-ops.png")
        server.route("/bad/truncated.avif", .ok(Array(avif.prefix(avif.count - 100))))
        server.route("/bad/truncated.png", .ok(Array(apng.prefix(apng.count - 40))))
    }

    func fetch(_ arguments: String...) throws -> CLI.Result {
        try CLI.run(["fetch"] + arguments, cacheDir: cache.path)
    }

    @Test(arguments: [
        ("anim3.gif", ImageFormat.gif), ("anim3.webp", .webp), ("apng-ops.png", .png), ("avif-sequence.avif", .avif),
    ])
    func thumbnailOfAnAnimationStaysAnimatedInItsKind(name: String, format: ImageFormat) throws {
        let original = try ImageDecoder().decode(Fixtures.bytes(name), frame: nil)
        let result = try fetch("--thumbnail", "5x5", server.url("/\(name)"))
        #expect(result.status == 0, "\(result.stderr)")
        let thumbnail = try ImageDecoder().decode(result.stdout, frame: nil)
        #expect(thumbnail.format == format)
        #expect(thumbnail.frames.count == original.frames.count)
        #expect(thumbnail.frames.map(\.durationMilliseconds) == original.frames.map(\.durationMilliseconds))
        #expect(thumbnail.loopCount == original.loopCount)
        #expect(thumbnail.width <= 5 && thumbnail.height <= 5 && max(thumbnail.width, thumbnail.height) == 5)
        // Served from the kept variant the second time, still animated.
        let again = try fetch("--thumbnail", "5x5", server.url("/\(name)"))
        #expect(again.stdout == result.stdout)
    }

    @Test func externalToolsReadTheSameFramesAndTiming() throws {
        if let info = try? Self.tool(
            "gifsicle", "--info", bytes: try fetch("--thumbnail", "6x6", server.url("/anim3.gif")).stdout)
        {
            #expect(info.contains("3 images"), "\(info)")
            #expect(info.components(separatedBy: "delay 0.08s").count - 1 == 3, "\(info)")
            #expect(info.contains("loop forever"), "\(info)")
        }
        if let info = try? Self.tool(
            "webpinfo", bytes: try fetch("--thumbnail", "6x6", server.url("/anim3.webp")).stdout)
        {
            #expect(Self.fields("Duration", in: info) == ["80", "120", "120"], "\(info)")
            #expect(Self.fields("Loop count", in: info) == ["0"], "\(info)")
        }
        if let info = try? Self.tool(
            "webpinfo", bytes: try fetch("--encode", "webp", server.url("/apng-ops.png")).stdout)
        {
            #expect(Self.fields("Duration", in: info) == ["100", "50", "200", "70", "30", "40"], "\(info)")
            #expect(Self.fields("Loop count", in: info) == ["3"], "\(info)")
        }
    }

    @Test func encodeKeepsTheAnimationUnlessAFrameIsPicked() throws {
        let webp = try ImageDecoder().decode(try fetch("--encode", "webp", server.url("/anim3.gif")).stdout, frame: nil)
        #expect(
            webp.format == .webp && webp.frames.count == 3 && webp.frames.map(\.durationMilliseconds) == [80, 80, 80])
        let png = try ImageDecoder().inspect(try fetch("--encode", "png", server.url("/anim3.webp")).stdout)
        #expect(png.format == .png && png.frameCount == 3)
        let gif = try ImageDecoder().inspect(
            try fetch("--max-pixels", "30", "--encode", "gif", server.url("/apng-ops.png")).stdout)
        #expect(gif.format == .gif && gif.frameCount == 6 && gif.width * gif.height <= 30)
        let one = try ImageDecoder().inspect(
            try fetch("--thumbnail", "5x5", "--frame", "2", server.url("/apng-ops.png")).stdout)
        #expect(one.format == .png && one.frameCount == 1)
        let jpeg = try ImageDecoder().inspect(try fetch("--encode", "jpeg", server.url("/anim3.gif")).stdout)
        #expect(jpeg.format == .jpeg && jpeg.frameCount == 1)
    }

    @Test(arguments: ["apng-ops.png", "avif-sequence.avif"])
    func decodeWritesEveryCompositedFrame(name: String) throws {
        let truth = try NetpbmStream.images(
            Fixtures.bytes(
                name.replacingOccurrences(
                    of: name.hasSuffix(".png") ? ".png" : ".avif",
                    with: ".truth.pam")))
        let result = try fetch("--decode", "pam", server.url("/\(name)"))
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try NetpbmStream.images(result.stdout)
        #expect(frames.count == truth.count)
        for (ours, reference) in zip(frames, truth) {
            #expect(NetpbmStream.close(ours.samples, reference, tolerance: 1))
        }
    }

    @Test func jsonNamesTheFormatAndFrames() throws {
        let avif = try fetch("--json", server.url("/avif-sequence.avif")).stdoutText
        #expect(avif.contains(#""format":"avif""#) && avif.contains(#""frames":3"#), "\(avif)")
        let apng = try fetch("--json", server.url("/apng-ops.png")).stdoutText
        #expect(apng.contains(#""format":"png""#) && apng.contains(#""frames":6"#), "\(apng)")
        let turned = try fetch("--json", server.url("/avif-irot.avif")).stdoutText
        #expect(turned.contains(#""orientation":7"#), "\(turned)")
    }

    @Test(arguments: [
        "huge-ispe.avif", "apng-outside-canvas.png", "apng-bad-sequence.png", "apng-fdat-before-fctl.png",
        "truncated.avif", "truncated.png",
    ])
    func malformedFilesAreExit5AndNeverCached(name: String) throws {
        let url = server.url("/bad/\(name)")
        let result = try fetch(url)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgcache: \(url): "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try CLI.run(["stat", "-q", url], cacheDir: cache.path).status == 7)
    }

    /// The values of every "Name: value" line of webpinfo's report.
    static func fields(_ name: String, in report: String) -> [String] {
        report.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Runs a reference tool on `bytes` (through a temporary file); throws if it is not installed.
    static func tool(_ name: String, _ arguments: String..., bytes: [UInt8]) throws -> String {
        let directory = try TemporaryDirectory()
        let file = "\(directory.path)/input"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments + [file]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableNotLoadable) }
        return String(decoding: output, as: UTF8.self)
    }
}
