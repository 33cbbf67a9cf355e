import Foundation
import TestSupport
import Testing

/// Issue 35, class 7: the README's two commands read right. `make demo`'s
/// closing lines say what they show, the README names every package `make
/// deps` installs, every test that can be skipped says why, and the tests
/// leave no temporary directory behind.
@Suite struct FirstCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func text(_ path: String) throws -> String {
        try String(contentsOfFile: "\(Self.root)/\(path)", encoding: .utf8)
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "the demo serves with python3"))
    func theDemosClosingLinesExplainThemselves() throws {
        let scratch = try TemporaryDirectory()
        let result = try CLI.run(
            ["\(Self.root)/scripts/demo.sh", CLI.executable.path], cacheDir: scratch.path,
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        let start = try #require(lines.lastIndex { $0.hasPrefix("Requests imgcache sent the server") })
        let counts = lines[(start + 1)...].prefix { $0.hasPrefix(" ") }
        #expect(!counts.isEmpty && counts.allSatisfy { $0.hasSuffix(" HTTP/1.1\"") }, "\(lines[start...])")
        #expect(!counts.contains { $0.contains("\"GET / ") }, "the demo's own readiness check is not imgcache's")
        #expect(counts.allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("1 ") }, "\(counts)")
        let explanation = lines[(start + 1 + counts.count)...].joined(separator: " ")
        #expect(explanation.contains("missing.jpg's second fetch") && explanation.contains("failed-URL list"))
    }

    @Test func theReadmeNamesEveryPackageMakeDepsInstalls() throws {
        let makefile = try text("Makefile")
        let start = try #require(makefile.range(of: "DEB_PACKAGES = "))
        var packages: [String] = []
        for line in makefile[start.upperBound...].split(separator: "\n") {
            packages += line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init).filter { $0 != "\\" }
            if !line.hasSuffix("\\") { break }
        }
        #expect(packages.contains("apache2") && packages.contains("libcurl4-openssl-dev"), "\(packages)")
        let readme = try text("README.md")
        let words = Set(readme.split(whereSeparator: { " `\n(),".contains($0) }).map(String.init))
        let missing = packages.filter { !words.contains($0) }
        #expect(missing.isEmpty, "make deps installs these, the README does not say: \(missing)")
    }

    /// `make test` leaves no `/tmp/imgcache-test-*` behind: a directory
    /// object dropped at once is removed before the process run on it
    /// makes a cache there, which then nothing removes.
    @Test func noTestDropsItsTemporaryDirectoryBeforeUsingIt() throws {
        let tests = "\(Self.root)/Tests"
        let files = try #require(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasSuffix("TemporaryDirectory.swift") }
        let dropped = try files.filter { file in
            try String(contentsOfFile: "\(tests)/\(file)", encoding: .utf8).contains("TemporaryDirectory()" + ".path")
        }
        #expect(dropped.isEmpty, "\(dropped)")
    }

    /// A skipped test is reported with its trait's comment: without one,
    /// the run says only "skipped".
    @Test func everyConditionalTestSaysWhyItSkips() throws {
        let tests = "\(Self.root)/Tests"
        let files = try #require(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var silent: [String] = []
        for file in files {
            let source = try String(contentsOfFile: "\(tests)/\(file)", encoding: .utf8)
            for marker in [".enabled(if:", ".disabled(if:", ".disabled("] {
                var rest = source[...]
                while let found = rest.range(of: marker) {
                    // The trait's arguments, to its closing parenthesis.
                    var depth = 1
                    var index = found.upperBound
                    while index < source.endIndex, depth > 0 {
                        if source[index] == "(" { depth += 1 } else if source[index] == ")" { depth -= 1 }
                        index = source.index(after: index)
                    }
                    let arguments = source[found.upperBound..<index]
                    if !arguments.contains("\"") && !arguments.contains("Comment(") && !arguments.contains("missing")
                        && !arguments.contains("Missing")
                    {
                        silent.append("\(file): \(marker)\(arguments)")
                    }
                    rest = source[index...]
                }
            }
        }
        #expect(silent.isEmpty, "conditions without a reason: \(silent)")
    }
}
