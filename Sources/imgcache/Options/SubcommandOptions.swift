import Synchronization

/// Every option of each subcommand, under every name the parser gives it,
/// and whether it takes a value: how a line is read before
/// swift-argument-parser reads it (`OptionScan`), so that the first error
/// named is an unknown option, and a long list of URLs need not go through
/// the parser (`URLOperands`). `OptionTablesTests` proves each table equal
/// to the parser's own definitions, no more and no fewer.
enum SubcommandOptions {
    /// `GlobalOptions` (and `RemoteStorageOptions`, its group).
    static let global: [PlainCommandLine.Option] = [
        (["--cache-dir"], true), (["--remote-storage"], true), (["-q", "--quiet"], false),
        (["-v", "--verbose"], false), (["--json"], false), (["--progress"], false), (["--no-progress"], false),
        (["--no-remote-storage"], false),
    ]

    /// `KeyOptions`.
    static let key: [PlainCommandLine.Option] = [(["--key-ignore-query"], false), (["--key-strip-param"], true)]

    /// `DownloadOptions` (`KeyOptions` among them).
    static let download: [PlainCommandLine.Option] =
        [
            (["--retries"], true), (["--max-per-host"], true), (["--timeout"], true), (["--connect-timeout"], true),
            (["--max-time"], true), (["--limit-rate"], true), (["--rate"], true), (["-H", "--header"], true),
            (["-u", "--user"], true), (["--aws-sigv4"], true), (["--cookie-jar"], true), (["--proxy"], true),
            (["--max-bytes"], true), (["--max-redirects"], true), (["--limit-pixels"], true),
            (["--limit-frames"], true), (["--limit-total-pixels"], true), (["--limit-scans"], true),
            (["--retry-failed"], false), (["--placeholder"], false), (["--offline"], false), (["--refresh"], false),
            (["--stale-if-error"], false), (["-k", "--insecure"], false),
        ] + key

    /// What the parser takes after any subcommand: help, the version, and
    /// what `make man` and the completion scripts ask it for.
    static let builtIn: [PlainCommandLine.Option] = [
        (["-h", "--help"], false), (["--version"], false), (["--experimental-dump-help"], false),
        (["--generate-completion-script"], true),
    ]

    /// The options of `subcommand`, built-in ones included; nil for `help`
    /// or a word that is no subcommand.
    static func options(of subcommand: String) -> [PlainCommandLine.Option]? {
        let own: [PlainCommandLine.Option]
        switch subcommand {
        case "fetch":
            own =
                download + [
                    (["--no-store"], false), (["-o", "--output"], true), (["--output-dir"], true), (["--decode"], true),
                    (["--frame"], true), (["--thumbnail"], true), (["--max-pixels"], true), (["--encode"], true),
                    (["--quality"], true), (["--colorspace"], true), (["--no-orient"], false), (["--path"], false),
                ]
        case "prefetch": own = download + [(["-j", "--concurrency"], true), (["--lifo"], false)]
        case "stat": own = key + [(["--placeholder"], false)]
        case "clean": own = [(["--max-age"], true), (["--max-size"], true), (["--dry-run"], false)]
        case "purge": own = key + [(["--all"], false), (["--failed"], false), (["--remote"], false)]
        default: return nil
        }
        return global + own + builtIn
    }

    /// The subcommands whose operands are URLs, any number of them.
    static let takingURLs: [String] = ["fetch", "stat", "purge"]
}

/// A subcommand's words (normalized by `ArgumentNormalizer`, after the
/// subcommand's name) read as the parser reads them: options, each valued
/// one's value, and operands. An option's value is the next word whatever
/// it looks like: where the parser would refuse it (`--cache-dir --json`),
/// it says so itself.
struct OptionScan {
    /// The first word that names no option of the subcommand (the name
    /// alone, without `=value`; in a cluster of short flags, the letter).
    private(set) var unknown: String?
    /// The positions of the operands in the words given, in order.
    private(set) var operands: [Int] = []
    /// The positions of the words naming the option `recording` names
    /// (`-o`, `--output` or `--output=FILE`), in order.
    private(set) var recorded: [Int] = []

    init(_ words: ArraySlice<String>, options: [PlainCommandLine.Option], recording: [String] = []) {
        func option(_ name: Substring) -> PlainCommandLine.Option? {
            options.first { $0.names.contains { $0 == name } }
        }
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if word == "--" {
                operands += index..<words.endIndex
                return
            }
            guard word.hasPrefix("-"), word != "-" else {
                operands.append(index - 1)
                continue
            }
            if word.hasPrefix("--") {
                let name = word.prefix { $0 != "=" }
                guard let found = option(name) else {
                    unknown = String(name)
                    return
                }
                if recording.contains(where: { $0 == name }) { recorded.append(index - 1) }
                if found.takesValue && name.count == word.count { index += 1 }
            } else if word.count == 2 {
                guard let found = option(word[...]) else {
                    unknown = word
                    return
                }
                if recording.contains(word) { recorded.append(index - 1) }
                if found.takesValue { index += 1 }
            } else {
                // `-qv`: `ArgumentNormalizer` has split off any letter that takes a value.
                for letter in word.dropFirst() where option("-\(letter)") == nil {
                    unknown = "-\(letter)"
                    return
                }
            }
        }
    }

    /// The long option of `options` nearest to `unknown` (`--thumbail`:
    /// `--thumbnail`), if it is near enough to be the one meant.
    static func suggestion(for unknown: String, options: [PlainCommandLine.Option]) -> String? {
        guard unknown.hasPrefix("--") else { return nil }
        return nearest(to: unknown, among: options.flatMap(\.names).filter { $0.hasPrefix("--") })
    }

    /// The word of `candidates` nearest to `word`, if it is near enough to
    /// be the one meant: two edits at most (a letter left out, added,
    /// changed, or two swapped), one for a word of four letters or fewer.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.utf8)
        let allowed = typed.count > 6 ? 2 : typed.count > 3 ? 1 : 0
        var best: (name: String, distance: Int)?
        for name in candidates {
            let distance = editDistance(typed, Array(name.utf8))
            if distance <= allowed, distance < best?.distance ?? Int.max { best = (name, distance) }
        }
        return best?.name
    }

    /// Optimal string alignment distance: insertions, deletions,
    /// substitutions and swaps of neighbours.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous) = (previous, current)
        }
        return previous[b.count]
    }
}

/// The URLs of a `fetch`, `stat` or `purge` line, given to the parsed
/// command past swift-argument-parser. Why: the parser (1.8.2) stores a
/// repeated positional by copying the array so far and merging the set of
/// its input positions for every value, and removes each word from the
/// front of its list: quadratic in the URLs (4 000 took 2.7 s, 684 M
/// instructions for 1 000). `runCommandLine` hands it the first URL only
/// and holds them all here; the command's `validate()` puts them back first,
/// so it checks, and the run gets, every URL in order.
enum URLOperands {
    /// The URLs held for the command the parser is about to make.
    static let holder = HeldOperands()

    /// Puts the held URLs in place of those the parser read (`HeldOperands.restore`);
    /// then each byte of a URL that is not UTF-8 as `%XX`
    /// (`percentEncodingRawBytes`, as `FetchPlan` reads them).
    static func restore(_ urls: inout [String]) {
        holder.restore(&urls)
        urls = urls.map(\.percentEncodingRawBytes)
    }

    /// `arguments` (normalized, starting with the subcommand) with every
    /// operand but the first taken out, and the operands, when the
    /// subcommand takes URLs and more than one is given; nil otherwise.
    static func split(_ arguments: [String], scan: OptionScan) -> (words: [String], urls: [String])? {
        guard let subcommand = arguments.first, SubcommandOptions.takingURLs.contains(subcommand),
            scan.operands.count > 1
        else { return nil }
        // Positions in the scan are of `arguments.dropFirst()`, which keeps `arguments`' indices.
        var words: [String] = []
        words.reserveCapacity(arguments.count - scan.operands.count + 1)
        var next = scan.operands.dropFirst().makeIterator()
        var skip = next.next()
        for (index, word) in arguments.enumerated() {
            if index == skip {
                skip = next.next()
            } else {
                words.append(word)
            }
        }
        return (words, scan.operands.map { arguments[$0] })
    }
}

/// `fetch`'s `-o` files, given to the parsed command past
/// swift-argument-parser as `URLOperands` gives the URLs. Why: the parser
/// (1.8.2) stores an array option's value by copying the values so far and
/// merging the set of their input positions, and removes each `-o` and its
/// value from the middle of its list: quadratic in the `-o` given (with
/// `-H`, which `FetchPlan` leaves to the parser, 1 000 pairs took 970 M
/// instructions, 2 000 3.6 G). `runCommandLine` hands it the first `-o`
/// only and holds every file here; `Fetch.validate` puts them back first.
enum OutputOperands {
    /// The names of the option held.
    static let names = ["-o", "--output"]

    /// The files held for the command the parser is about to make.
    static let holder = HeldOperands()

    /// `arguments` (normalized, starting with `fetch`; `scan` made with
    /// `recording: names`) with every `-o FILE` but the first taken out,
    /// and the files, when more than one is given and each FILE is one the
    /// parser reads as a value (not empty, and `-` or not starting with
    /// `-`: it refuses the others in its own words); nil otherwise.
    static func split(_ arguments: [String], scan: OptionScan) -> (words: [String], files: [String])? {
        guard arguments.first == "fetch", scan.recorded.count > 1 else { return nil }
        var files: [String] = []
        files.reserveCapacity(scan.recorded.count)
        var dropped = [Bool](repeating: false, count: arguments.count)
        for (nth, at) in scan.recorded.enumerated() {
            let word = arguments[at]
            let file: String
            if let equals = word.firstIndex(of: "=") {
                file = String(word[word.index(after: equals)...])
            } else {
                guard at + 1 < arguments.count else { return nil }
                file = arguments[at + 1]
                if nth > 0 { dropped[at + 1] = true }
            }
            guard !file.isEmpty, file == "-" || !file.hasPrefix("-") else { return nil }
            if nth > 0 { dropped[at] = true }
            files.append(file)
        }
        var words: [String] = []
        words.reserveCapacity(arguments.count - 2 * (files.count - 1))
        for (index, word) in arguments.enumerated() where !dropped[index] { words.append(word) }
        return (words, files)
    }
}

/// Words of the command line held past swift-argument-parser (`URLOperands`,
/// `OutputOperands`): set before the parser makes the command, read by its
/// `validate()`. A global, as the parser makes the command itself; behind a
/// lock, as Swift 6 asks of shared mutable state.
final class HeldOperands: Sendable {
    private let words = Mutex<[String]?>(nil)

    /// Holds `words` for the command the parser is about to make (nil: none).
    func hold(_ words: [String]?) {
        self.words.withLock { $0 = words }
    }

    /// Puts the held words in place of those the parser read, when it read
    /// the first of them alone.
    func restore(_ parsed: inout [String]) {
        if parsed.count == 1, let all = words.withLock({ $0 }), all.first == parsed[0] { parsed = all }
    }
}
