import Foundation
import TestSupport
import Testing

/// Issue 26, finding 9: `imgcache help` starts with the short usage, and the
/// man page's header is not groff 1.22's "BSD General Commands Manual".
@Suite struct HelpAndManualTests {
    @Test func helpStartsWithTheShortUsage() throws {
        let scratch = try TemporaryDirectory()
        for arguments in [["help"], ["--help"], ["-h"]] {
            let result = try CLI.run(arguments, cacheDir: scratch.path)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdoutText.hasPrefix("usage: imgcache [global options] <subcommand>"), "\(arguments)")
            #expect(result.stdoutText.contains("OVERVIEW:"), "the full help follows")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func theManPageHeaderNamesNoBSD() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let header = try Shell.output("groff -mandoc -Tascii '\(root)/man/imgcache.1' 2>/dev/null | head -1")
        let line = String(decoding: header, as: UTF8.self)
        #expect(line.contains("General Commands Manual") && !line.contains("BSD"), "\(line)")
    }
}
