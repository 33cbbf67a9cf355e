import Foundation
import ImageCore
import TestSupport
import Testing

/// Issue 26, finding 9: every field a JSON record can carry is documented in
/// the man page's JSON RECORDS section; the fields are those actually
/// printed by every subcommand, nested objects included, found whole in the
/// rendered page (issue 35: hyphenation split them).
@Suite(.serialized) struct JSONFieldDocumentationTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route(
            "/a.png",
            .ok(
                Fixtures.tinyPNG,
                headers: [
                    "ETag": "\"1\"", "Last-Modified": "Sun, 01 Nov 2026 10:00:00 GMT", "Cache-Control": "max-age=60",
                ]))
        server.route("/gone.png", .status(404))
    }

    /// Every key of every object in `value`, nested ones included.
    static func fieldNames(_ value: Any) -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set(object.keys)) { names, pair in names.formUnion(fieldNames(pair.value)) }
        }
        if let array = value as? [Any] { return array.reduce(into: []) { $0.formUnion(fieldNames($1)) } }
        return []
    }

    @Test(.enabled(if: RenderedManual.available, "needs groff to render the man page"))
    func everyPrintedFieldIsInTheRenderedManPage() throws {
        let url = server.url("/a.png"), gone = server.url("/gone.png")
        var outputs: [CLI.Result] = []
        outputs.append(try run("fetch", "--json", url, gone))
        outputs.append(try run(["prefetch", "--json"], stdin: Array("\(url)\n\(gone)\n".utf8)))
        outputs.append(try run("fetch", "--json", "--thumbnail", "2x2", url))
        outputs.append(try run("stat", "--json"))
        outputs.append(try run("stat", "--json", "--remote-storage", "http://user:pw@127.0.0.1:9/store"))
        outputs.append(try run("stat", "--json", url, gone))
        outputs.append(try run("clean", "--json", "--dry-run"))
        outputs.append(try run("purge", "--json", "--remote", "--remote-storage", server.url("/store"), url))
        outputs.append(try run("purge", "--json", "--failed"))
        outputs.append(try run("purge", "--json", "--all"))
        var names: Set<String> = []
        for output in outputs {
            for line in output.stdoutLines {
                names.formUnion(Self.fieldNames(try JSONSerialization.jsonObject(with: Data(line.utf8))))
            }
        }
        #expect(names.isSuperset(of: ["url", "key", "result", "counters", "bytes_downloaded", "remote_errors"]))
        #expect(names.contains("remote_storage") && names.contains("removed"), "purge --json --remote printed nothing")
        // Searched in the rendered page, as a reader searches it: a field
        // split by hyphenation at a line's end is not found.
        for (columns, text) in try RenderedManual.renderings() {
            let section = RenderedManual.section("JSON RECORDS", of: text)
            let undocumented = names.filter { !RenderedManual.contains(section, word: $0) }
            #expect(
                undocumented.isEmpty, "\(columns) columns: printed but not found in the page: \(undocumented.sorted())")
        }
    }

    /// Session 16 review: the man page listed eight names for `error.kind`,
    /// without `output` (`fetch --json --output-dir` into a file it cannot
    /// write) and `usage` (a `prefetch` line libcurl cannot parse); every
    /// kind a record can carry is listed.
    @Test func everyErrorKindIsListedInTheManPage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("man/sections.mdoc"), encoding: .utf8)
        let line = try #require(source.split(separator: "\n").first { $0.contains("(an exit status name:") })
        let listed = Set(
            line.drop { $0 != ":" }.dropFirst().prefix { $0 != ")" }.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        #expect(listed == Set(ImageCoreError.Kind.allCases.map(\.rawValue)), "\(line)")
    }
}
