/// A subcommand's command line read without swift-argument-parser, for the
/// paths that answer before it would load (`WarmHitPlan`, `PrefetchPlan`):
/// the subcommand, then options from a table (each at most once, under any
/// of its names, but for the one `repeating` names; a value attached with
/// `=`, or `-j6` as `ArgumentNormalizer` splits it) and operands. Any other
/// word starting with `-`, an option given twice, a flag with a value, an
/// option without one or whose next
/// word starts with `-` (but is not `-`) is nil: the
/// full parser then says what is wrong, in its own words. Each plan's table
/// is proven equal to the parser's definitions by `OptionTablesTests`.
struct PlainCommandLine {
    /// An option: every name the parser gives it, and whether it takes a value.
    typealias Option = (names: [String], takesValue: Bool)

    /// Per option of the table, by position: nil if not given, its value,
    /// or "" for a flag given.
    private(set) var values: [String?]
    /// The words that are not options, in order.
    private(set) var operands: [String] = []
    /// Every value of the option at slot `repeating`, in order (`values`
    /// holds its first).
    private(set) var repeated: [String] = []

    /// Reads `arguments` with `options`; the option at slot `repeating`, if
    /// any, may be given any number of times (an array option of the
    /// parser's, as `fetch -o FILE` is).
    init?(_ arguments: [String], subcommand: String, options: [Option], repeating: Int? = nil) {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: [subcommand])
        guard words.first == subcommand else { return nil }
        // One slot per option, not a dictionary (see
        // `ArgumentNormalizer.shortOptionsTakingValue` on what a first
        // `Dictionary` costs at start).
        values = [String?](repeating: nil, count: options.count)
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            let (name, attached) = Self.split(word)
            guard let slot = options.firstIndex(where: { $0.names.contains(name) }) else {
                guard !word.hasPrefix("-") else { return nil }
                operands.append(word)
                continue
            }
            guard values[slot] == nil || slot == repeating else { return nil }
            if options[slot].takesValue {
                let value: String
                if let attached {
                    value = attached
                } else {
                    // The parser takes a next word that looks like an option
                    // (`--cache-dir --json`) as a missing value, unless the
                    // option is `.unconditional`: left to it either way.
                    guard index < words.count, words[index] == "-" || !words[index].hasPrefix("-") else { return nil }
                    value = words[index]
                    index += 1
                }
                guard !value.isEmpty else { return nil }
                if slot == repeating { repeated.append(value) }
                if values[slot] == nil { values[slot] = value }
            } else {
                guard attached == nil else { return nil }
                values[slot] = ""
            }
        }
    }

    /// Whether the option at `slot` was given.
    func has(_ slot: Int) -> Bool { values[slot] != nil }

    /// `--name=value` as its name and value; any other word as itself.
    private static func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
