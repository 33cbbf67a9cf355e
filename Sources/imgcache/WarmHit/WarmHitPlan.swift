/// The one command line `WarmHit` answers by itself, read without
/// swift-argument-parser: `fetch` with one http(s) URL and nothing else but
/// `-o FILE`, `--cache-dir DIR`, `-q`, `-v` and `--no-progress`, each at
/// most once (global options may come before `fetch`, short values may be
/// attached, as `ArgumentNormalizer` allows). Anything else, including
/// every usage error, is nil and left to the full parser, which says what
/// is wrong in its own words.
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
    static let options: [(names: [String], takesValue: Bool)] = [
        (["-o", "--output"], true), (["--cache-dir"], true), (["-q", "--quiet"], false),
        (["-v", "--verbose"], false), (["--no-progress"], false),
    ]

    init?(arguments: [String]) {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: ["fetch"])
        guard words.first == "fetch" else { return nil }
        // One slot per option of `options`, not a dictionary (see
        // `ArgumentNormalizer.shortOptionsTakingValue` on what a first
        // `Dictionary` costs at start).
        var values = [String?](repeating: nil, count: Self.options.count)
        var urls: [String] = []
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            let (name, attached) = Self.split(word)
            guard let slot = Self.options.firstIndex(where: { $0.names.contains(name) }) else {
                guard !word.hasPrefix("-") else { return nil }
                urls.append(word)
                continue
            }
            // Each option at most once, under whichever of its names.
            guard values[slot] == nil else { return nil }
            if Self.options[slot].takesValue {
                let value: String
                if let attached {
                    value = attached
                } else {
                    guard index < words.count else { return nil }
                    value = words[index]
                    index += 1
                }
                guard !value.isEmpty else { return nil }
                values[slot] = value
            } else {
                guard attached == nil else { return nil }
                values[slot] = ""
            }
        }
        (output, cacheDirectory) = (values[0], values[1])
        (quiet, verbose, noProgress) = (values[2] != nil, values[3] != nil, values[4] != nil)
        guard urls.count == 1, !(quiet && verbose), (try? validateURLs(urls)) != nil else { return nil }
        url = urls[0]
    }

    /// `--name=value` as its name and value; any other word as itself.
    private static func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
