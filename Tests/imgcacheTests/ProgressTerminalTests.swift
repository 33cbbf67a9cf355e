import Foundation
import TestSupport
import Testing

/// `fetch` with stdout and stderr on a pseudo-terminal (util-linux
/// `script`), the screen rebuilt from what was written (issue 15, item 5):
/// each summary line must start at the left margin, not after the bar.
@Suite(.serialized) struct ProgressTerminalTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    /// Runs `imgcache arguments...` on a new pseudo-terminal; returns what the terminal received.
    func runOnTerminal(_ arguments: [String]) throws -> [UInt8] {
        let quoted = ([CLI.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        script.arguments = ["-qfec", quoted, "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["IMGCACHE_DIR"] = cache.path
        environment["TERM"] = "xterm"
        script.environment = environment
        let output = Pipe()
        script.standardOutput = output
        script.standardInput = FileHandle.nullDevice
        try script.run()
        let bytes = [UInt8](output.fileHandleForReading.readDataToEndOfFile())
        script.waitUntilExit()
        return bytes
    }

    /// The lines a terminal shows after receiving `bytes`: carriage return,
    /// newline and erase-to-end-of-line (`ESC [ K`) applied.
    static func screen(_ bytes: [UInt8]) -> [String] {
        var lines: [[Unicode.Scalar]] = [[]]
        var column = 0
        var index = 0
        // Scalars, not Characters: "\r\n" is one Character.
        let text = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        while index < text.count {
            let character = text[index]
            index += 1
            switch character {
            case "\r": column = 0
            case "\n":
                lines.append([])
                column = 0
            case "\u{1B}":
                // Only erase-to-end-of-line is expected; any other sequence is kept visible.
                if index + 1 < text.count, text[index] == "[", text[index + 1] == "K" {
                    lines[lines.count - 1].removeSubrange(min(column, lines[lines.count - 1].count)...)
                    index += 2
                } else {
                    lines[lines.count - 1].append("^")
                }
            default:
                if column < lines[lines.count - 1].count {
                    lines[lines.count - 1][column] = character
                } else {
                    lines[lines.count - 1].append(character)
                }
                column += 1
            }
        }
        return lines.map { String(String.UnicodeScalarView($0)) }.filter { !$0.isEmpty }
    }

    @Test func theScreenModelAppliesEraseAndCarriageReturn() {
        #expect(Self.screen(Array("[===]  1/1\r\u{1B}[Kdone\r\n".utf8)) == ["done"])
        #expect(Self.screen(Array("[===]  1/1done\r\n".utf8)) == ["[===]  1/1done"])
    }

    @Test func summariesStartAtTheLeftMarginUnderTheProgressBar() throws {
        let paths = (0..<4).map { "/img\($0).png" }
        for path in paths { server.route(path, .ok(Fixtures.tinyPNG)) }
        for urls in [[server.url(paths[0])], paths.map(server.url)] {
            let screen = Self.screen(try runOnTerminal(["--progress", "fetch", "--refresh"] + urls))
            #expect(screen.count == urls.count, "\(screen)")
            for (line, url) in zip(screen, urls) {
                #expect(line.hasPrefix("\(url): PNG 4×3"), "\(line)")
            }
        }
    }

    @Test func anErrorUnderTheBarStartsAtTheLeftMargin() throws {
        server.route("/ok.png", .ok(Fixtures.tinyPNG))
        let screen = Self.screen(
            try runOnTerminal(["--progress", "fetch", server.url("/ok.png"), server.url("/gone.png")]))
        #expect(screen.contains { $0.hasPrefix("\(server.url("/ok.png")): PNG") }, "\(screen)")
        #expect(screen.contains("imgcache: \(server.url("/gone.png")): HTTP 404 Not Found"), "\(screen)")
        #expect(screen.count == 2, "\(screen)")
    }

    /// Issue 26, finding 7: in every output mode, on a terminal.
    @Test func theSummaryNeverSharesALineWithTheBarInAnyMode() throws {
        server.route("/mode.png", .ok(Fixtures.tinyPNG))
        let url = server.url("/mode.png")
        let modes: [([String], String)] = [
            (["--decode", "ppm"], "\(url): PNG 4×3"), (["--decode", "pam"], "\(url): PNG 4×3"),
            (["--decode", "png"], "\(url): PNG 4×3"), (["--thumbnail", "2x2"], "\(url): PNG 4×3"),
            (["--encode", "webp"], "\(url): PNG 4×3"), ([], "\(url): PNG 4×3"), (["--json"], "{\"url\":"),
            (["--path"], cache.path),
        ]
        for (options, start) in modes {
            let screen = Self.screen(try runOnTerminal(["--progress", "fetch", "--refresh"] + options + [url]))
            #expect(screen.count == 1, "\(options): \(screen)")
            #expect(screen.first?.hasPrefix(start) == true, "\(options): \(screen)")
        }
    }

    @Test func prefetchShowsBytesAsTheyArriveAndRedrawsWhileTheyDo() throws {
        // Two 60 KB bodies at 20 KB/s: three seconds in which no URL is done.
        let body = Fixtures.tinyPNG + [UInt8](repeating: 7, count: 60_000)
        for path in ["/s0.png", "/s1.png"] { server.route(path, .trickle(body, bytesPerSecond: 20_000)) }
        let list = try TemporaryDirectory()
        let file = "\(list.path)/urls.txt"
        try Data("\(server.url("/s0.png"))\n\(server.url("/s1.png"))\n".utf8).write(to: URL(fileURLWithPath: file))
        let start = Date()
        let output = try runOnTerminal(["--progress", "prefetch", file])
        let seconds = Date().timeIntervalSince(start)
        // Every drawing starts with a carriage return and an erase.
        let frames = String(decoding: output, as: UTF8.self).components(separatedBy: "\r\u{1B}[K").filter {
            !$0.isEmpty
        }
        let running = frames.filter { $0.contains("0/2") }
        #expect(running.contains { $0.contains("KiB  ") && !$0.contains(" 0 B ") }, "\(running)")
        #expect(running.contains { $0.contains("ETA") }, "\(running)")
        // Issue 35, class 4: the bar fills by bytes (Content-Length is
        // known) while no URL is done, rather than staying empty.
        #expect(running.contains { $0.hasPrefix("[=") }, "\(running)")
        #expect(Double(frames.count) >= 2 * (seconds - 1), "\(frames.count) drawings in \(seconds) s: \(frames)")
    }

    @Test func fetchShowsAnETAAndRedrawsWhileBytesTrickle() throws {
        // Two 60 KB bodies at 20 KB/s, fetched together: three seconds in which no URL is done.
        let body = Fixtures.tinyPNG + [UInt8](repeating: 7, count: 60_000)
        for path in ["/f0.png", "/f1.png"] { server.route(path, .trickle(body, bytesPerSecond: 20_000)) }
        let out = try TemporaryDirectory()
        let start = Date()
        let output = try runOnTerminal(
            ["--progress", "fetch", "--output-dir", out.path, server.url("/f0.png"), server.url("/f1.png")])
        let seconds = Date().timeIntervalSince(start)
        let frames = String(decoding: output, as: UTF8.self).components(separatedBy: "\r\u{1B}[K").filter {
            !$0.isEmpty
        }
        let running = frames.filter { $0.contains("0/2") }
        #expect(running.contains { $0.contains("ETA") }, "\(running)")
        #expect(running.contains { $0.hasPrefix("[=") }, "\(running)")
        #expect(Double(frames.count) >= 2 * (seconds - 1), "\(frames.count) drawings in \(seconds) s: \(frames)")
    }

    /// Issue 35, class 2: with stdin a terminal and no file, one line says
    /// what prefetch needs (not pages of help), exit 64.
    @Test func prefetchOnATerminalWithoutAFileSaysWhatItNeeds() throws {
        let screen = Self.screen(try runOnTerminal(["prefetch"]))
        #expect(
            screen == [
                "imgcache: prefetch: give a file of URLs, or pipe them in (stdin is a terminal) "
                    + "(see 'imgcache help prefetch')"
            ], "\(screen)")
    }
}
