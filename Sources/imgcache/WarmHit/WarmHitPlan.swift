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

    init?(arguments: [String]) {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: ["fetch"])
        guard words.first == "fetch" else { return nil }
        var seen: Set<String> = []
        var urls: [String] = []
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            let (name, attached) = Self.split(word)
            switch name {
            case "-o", "--output", "--cache-dir":
                guard seen.insert(name == "-o" ? "--output" : name).inserted else { return nil }
                let value: String
                if let attached {
                    value = attached
                } else {
                    guard index < words.count else { return nil }
                    value = words[index]
                    index += 1
                }
                guard !value.isEmpty else { return nil }
                if name == "--cache-dir" { cacheDirectory = value } else { output = value }
            case "-q", "--quiet", "-v", "--verbose", "--no-progress":
                guard attached == nil, seen.insert(name.count == 2 ? name : "-" + name.dropFirst(2).prefix(1)).inserted
                else { return nil }
                if name.hasPrefix("-q") || name == "--quiet" { quiet = true }
                if name.hasPrefix("-v") || name == "--verbose" { verbose = true }
                if name == "--no-progress" { noProgress = true }
            default:
                guard !word.hasPrefix("-") else { return nil }
                urls.append(word)
            }
        }
        guard urls.count == 1, !(quiet && verbose), (try? validateURLs(urls)) != nil else { return nil }
        url = urls[0]
    }

    /// `--name=value` as its name and value; any other word as itself.
    private static func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
