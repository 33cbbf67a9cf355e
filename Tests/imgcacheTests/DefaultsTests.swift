import Foundation
import ImageCore
import Testing

@testable import imgcache

/// The defaults are one table, `Defaults`: the man page's DEFAULTS section,
/// the argument parser's option defaults and the library's values all say
/// what it says.
@Suite struct DefaultsTests {
    /// Each option of the DEFAULTS section and the value the table gives it.
    let expected: [String: Double] = [
        "--concurrency": Double(Defaults.concurrentDownloads), "--max-per-host": Double(Defaults.connectionsPerHost),
        "--retries": Double(Defaults.retries), "--timeout": Defaults.timeout,
        "--max-bytes": Double(Defaults.maxBytes), "--max-redirects": Double(Defaults.maxRedirects),
        "--limit-pixels": Double(Defaults.maxPixels), "--limit-frames": Double(Defaults.maxFrames),
        "--limit-total-pixels": Double(Defaults.maxTotalPixels), "--limit-scans": Double(Defaults.maxJPEGScans),
    ]

    /// A default as the man page and the parser write it: "64M" is bytes
    /// (binary), "100M" of pixels is decimal, anything else a plain number.
    func value(_ text: String, option: String) -> Double? {
        if option == "--max-bytes" { return Quantities.parseSize(text).map(Double.init) }
        if option.hasSuffix("pixels") { return Quantities.parseCount(text).map(Double.init) }
        return Double(text)
    }

    @Test func theManPageSaysWhatTheTableSays() throws {
        let manPage = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../man/imgcache.1").standardized
        let text = try String(contentsOf: manPage, encoding: .utf8)
        let start = try #require(text.range(of: "\n.Sh DEFAULTS\n"))
        let lines = text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix {
            !$0.hasPrefix(".Sh ")
        }
        var found: [String: Double] = [:]
        var connect: Double?
        for (index, line) in lines.enumerated() where line.hasPrefix(".It Fl ") && index + 1 < lines.count {
            let option = try #require(line.split(separator: " ").last.map { "-" + $0 })
            let number = try #require(
                lines[index + 1].split(separator: " ").first.map { $0.trimmingCharacters(in: .punctuationCharacters) })
            found[option] = value(number, option: option)
            if option == "--timeout", let words = lines[index + 1].split(separator: " ").dropLast(2).last {
                connect = Double(words)
            }
        }
        #expect(found == expected)
        #expect(connect == Defaults.connectTimeout)
    }

    @Test func theParserAndTheLibraryUseTheTable() throws {
        for command in [IMGCacheCommand.Fetch._dumpHelp(), IMGCacheCommand.Prefetch._dumpHelp()] {
            let tool = try #require(try JSONSerialization.jsonObject(with: Data(command.utf8)) as? [String: Any])
            let arguments = try #require((tool["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
            for argument in arguments {
                let names = (argument["names"] as? [[String: String]] ?? []).compactMap { $0["name"] }
                guard let name = names.first(where: { expected["--" + $0] != nil }).map({ "--" + $0 }),
                    let shown = argument["defaultValue"] as? String
                else { continue }
                #expect(value(shown, option: name) == expected[name], "\(name): \(shown)")
            }
        }
        let request = ImageRequest(url: "http://127.0.0.1/")
        #expect(request.retries == Defaults.retries)
        // Timeouts a request leaves open come from imgcache.conf, else the table.
        #expect(request.download.timeout == nil && request.download.effectiveTimeout == Defaults.timeout)
        #expect(
            request.download.connectTimeout == nil && DownloadRequest.defaultConnectTimeout == Defaults.connectTimeout)
        #expect(request.download.maxBytes == Defaults.maxBytes)
        #expect(request.download.maxRedirects == Defaults.maxRedirects)
        let limits = DecodingLimits.default
        let table = DecodingLimits(
            maxPixels: Defaults.maxPixels, maxFrames: Defaults.maxFrames, maxTotalPixels: Defaults.maxTotalPixels,
            maxJPEGScans: Defaults.maxJPEGScans)
        #expect(limits == table)
    }
}
