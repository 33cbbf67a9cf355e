import Foundation
import TestSupport
import Testing

/// The man page as a reader sees it (issue 35, class 5): rendered by groff
/// as `man` renders it, at a terminal's width and a narrow one, and searched
/// the way a reader searches a pager. The source can be right while the
/// rendered page is not: mdoc called `No` as a macro and ate the word, and
/// hyphenation split `bytes_downloaded` across two lines.
enum RenderedManual {
    /// Whether groff is there to render the page.
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/groff")

    /// man/imgcache.1 rendered as plain UTF-8 text `columns` wide.
    static func text(columns: Int) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        // -P-cbou: no escape sequences, no overstriking: the characters a pager searches.
        let bytes = try Shell.output(
            "groff -mandoc -Tutf8 -P-cbou -rLL=\(columns)n '\(root)/man/imgcache.1' 2>/dev/null")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The renderings searched: an 80-column terminal and a narrow one.
    static func renderings() throws -> [(columns: Int, text: String)] {
        try [80, 57].map { ($0, try text(columns: $0)) }
    }

    /// The text of section `name` (up to the next section heading).
    static func section(_ name: String, of text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == name }) else { return "" }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { line in line.first.map { $0.isUppercase } == true } ?? rest.endIndex
        return rest[..<end].joined(separator: "\n")
    }

    /// Whether `word` stands in `text` whole, not as part of a longer name.
    static func contains(_ text: String, word: String) -> Bool {
        let isNamePart: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "_" }
        var rest = text[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound > text.startIndex ? text[text.index(before: range.lowerBound)] : " "
            let after = range.upperBound < text.endIndex ? text[range.upperBound] : " "
            if !isNamePart(before) && !isNamePart(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }
}

@Suite struct RenderedManualTests {
    /// Every status `ExitStatus` maps to, with its documented name.
    static let statuses = [
        (0, "ok"), (1, "failure"), (3, "network"), (4, "http"), (5, "image"), (6, "failed-before"),
        (7, "not-cached"), (8, "cache-io"), (23, "output"), (64, "usage"), (130, "interrupted"),
    ]

    @Test(.enabled(if: RenderedManual.available, "needs groff to render the man page"))
    func everyExitStatusHasItsLineWithItsName() throws {
        for (columns, text) in try RenderedManual.renderings() {
            let section = RenderedManual.section("EXIT STATUS", of: text)
            let lines = section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            for (code, name) in Self.statuses {
                #expect(
                    lines.contains {
                        $0.hasPrefix("\(code) ")
                            && $0.dropFirst("\(code)".count).trimmingCharacters(in: .whitespaces).hasPrefix("\(name):")
                    },
                    "\(columns) columns: no line '\(code) \(name):' in\n\(section)")
            }
        }
    }

    @Test(.enabled(if: RenderedManual.available, "needs groff to render the man page"))
    func noWordIsEatenOrHyphenated() throws {
        for (columns, text) in try RenderedManual.renderings() {
            let joined = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ")
            #expect(joined.contains("write error: No space left on device"), "\(columns) columns")
            // A word broken by hyphenation ends a line with U+2010 (groff's
            // hyphen); one broken after its own hyphen ("If-" / "None-Match",
            // "--max-" / "per-host") with "-" right after a letter or digit.
            let lines = text.split(separator: "\n").map(String.init)
            for (line, next) in zip(lines, lines.dropFirst()) where line.hasSuffix("\u{2010}") {
                Issue.record("\(columns) columns: a word hyphenated: '\(line)' / '\(next)'")
            }
            for (line, next) in zip(lines, lines.dropFirst())
            where line.hasSuffix("-") && line.dropLast().last.map({ $0.isLetter || $0.isNumber }) == true {
                Issue.record("\(columns) columns: a word broken at its hyphen: '\(line)' / '\(next)'")
            }
        }
    }
}
