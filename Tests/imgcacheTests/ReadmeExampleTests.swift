import Foundation
import TestSupport
import Testing

/// Every command of the README's "Use" block, run by bash as written, with
/// its placeholders (URL, URL1…, anim.gif, urls.txt) pointing at the loopback
/// server (issue 15, item 11). Each must exit 0; the pipelines use the real
/// netpbm tools, so a pipeline that fails on Debian fails here.
@Suite(.serialized) struct ReadmeExampleTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The commands of the first ```sh block after "## Use", without their comments.
    static func commands() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let use = try #require(text.range(of: "## Use\n"))
        let block = text[use.upperBound...].drop { $0 != "`" }.dropFirst("```sh\n".count)
        let body = try #require(block.range(of: "```")).lowerBound
        return block[..<body].split(separator: "\n").map { line in
            // The comments start after a run of spaces and a '#'.
            let code =
                line.range(of: #"\s{2,}# "#, options: .regularExpression).map { line[..<$0.lowerBound] } ?? line[...]
            return code.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    @Test func everyExampleRunsAgainstTheLoopbackServer() throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        for name in ["cat.jpg", "1.png", "2.png", "3.png", "anim.gif", "x.png"] {
            server.route("/\(name)", .ok(Fixtures.tinyPNG))
        }
        try Data([server.url("/1.png"), server.url("/2.png")].joined(separator: "\n").utf8)
            .write(to: URL(fileURLWithPath: "\(work.path)/urls.txt"))
        let substitutions: [(String, String)] = [
            ("https://example.com/cat.jpg", server.url("/cat.jpg")), ("URL1", server.url("/1.png")),
            ("URL2", server.url("/2.png")), ("URL3", server.url("/3.png")), ("URL", server.url("/x.png")),
            // The README writes a URL, as a user must (issue 26: `--frame 0 anim.gif` was no URL).
            ("https://example.com/anim.gif", server.url("/anim.gif")),
        ]
        let commands = try Self.commands()
        #expect(commands.count >= 15)
        #expect(commands.allSatisfy { $0.hasPrefix("imgcache ") })
        for command in commands {
            let line = substitutions.reduce(command) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            let result = try bash(line, in: work.path, cacheDir: cache.path)
            #expect(result.status == 0, "\(command): exit \(result.status): \(result.stderr)")
        }
        let half = try Data(contentsOf: URL(fileURLWithPath: "\(work.path)/half.png"))
        #expect(half.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the pamscale | pamtopng pipeline wrote no PNG")
    }

    /// Runs `line` with bash (pipefail, so a failing stage counts), `imgcache` on the PATH.
    func bash(_ line: String, in directory: String, cacheDir: String) throws -> CLI.Result {
        let path =
            CLI.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let script = "cd '\(directory)' && \(line)"
        return try CLI.run(
            ["-o", "pipefail", "-c", script], cacheDir: cacheDir, environment: ["PATH": path],
            executable: URL(fileURLWithPath: "/bin/bash"))
    }
}
