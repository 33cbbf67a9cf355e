import Foundation
import Testing

/// The shared corpus of real images (`../shared/corpus`), when present.
enum Corpus {
    /// Why a test that needs the corpus is skipped without it.
    static let missing: Comment = "needs the image corpus: ../shared/corpus beside the checkout, or IMGCACHE_CORPUS"

    /// The corpus directory, or nil when this checkout has none beside it
    /// (a worktree elsewhere names it with `IMGCACHE_CORPUS`).
    static let directory: URL? = {
        if let path = ProcessInfo.processInfo.environment["IMGCACHE_CORPUS"],
            FileManager.default.fileExists(atPath: path + "/MANIFEST.tsv")
        {
            return URL(fileURLWithPath: path)
        }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, ImageCoreTests, Tests, package root
        let corpus = url.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: corpus.appendingPathComponent("MANIFEST.tsv").path) ? corpus : nil
    }()

    /// Rows of a manifest as dictionaries keyed by the header's column names.
    static func manifest(_ name: String) -> [[String: String]] {
        guard let directory, let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst()
        return lines.map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
    }

    /// The bytes of a file in the corpus.
    static func bytes(_ path: String) throws -> [UInt8] {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return try [UInt8](Data(contentsOf: directory.appendingPathComponent(path)))
    }
}
