/// The one command line `WarmHit` answers by itself, read without
/// swift-argument-parser (`PlainCommandLine`): `fetch` with one http(s) URL
/// and nothing else but `-o FILE`, `--cache-dir DIR`, `-q`, `-v` and
/// `--no-progress`, each at most once (global options may come before
/// `fetch`, short values may be attached, as `ArgumentNormalizer` allows).
/// Anything else, including every usage error, is nil and left to the full
/// parser, which says what is wrong in its own words.
struct WarmHitPlan: Equatable {
    var url = ""
    var output: String?
    var cacheDirectory: String?
    var quiet = false
    var verbose = false
    var noProgress = false

    /// The options the plan reads, each with every name the argument parser
    /// gives it for `fetch` and whether it takes a value. A table here, not
    /// the parser's, which the warm hit never loads; `OptionTablesTests`
    /// proves it equal to the parser's definitions (its ToolInfo). `init`
    /// reads the values by position: output, cache directory, quiet,
    /// verbose, no progress.
    static let options: [PlainCommandLine.Option] = [
        (["-o", "--output"], true), (["--cache-dir"], true), (["-q", "--quiet"], false),
        (["-v", "--verbose"], false), (["--no-progress"], false),
    ]

    init?(arguments: [String]) {
        guard let line = PlainCommandLine(arguments, subcommand: "fetch", options: Self.options) else { return nil }
        (output, cacheDirectory) = (line.values[0], line.values[1])
        (quiet, verbose, noProgress) = (line.has(2), line.has(3), line.has(4))
        let urls = line.operands
        guard urls.count == 1, !(quiet && verbose), (try? validateURLs(urls)) != nil else { return nil }
        url = urls[0]
    }
}
