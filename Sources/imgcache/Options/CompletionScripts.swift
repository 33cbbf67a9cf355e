import ArgumentParser

/// The shell completion scripts, as swift-argument-parser generates them
/// with what it cannot know put right: bash offers the global options right
/// after `imgcache ` (they are accepted before the subcommand) and the
/// subcommands after `help `; no shell offers an option its subcommand
/// refuses as having no effect (`IneffectiveOptions.swift`).
enum CompletionScripts {
    /// Per subcommand, the options it refuses whatever else is given.
    static let refused: [String: [String]] = [
        "prefetch": ["--no-store"], "stat": ["--progress"], "clean": ["--progress"], "purge": ["--progress"],
    ]

    /// The script for `shell` (bash, zsh or fish); nil for another shell,
    /// which the parser then reports.
    static func script(for shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let generated = IMGCacheCommand.completionScript(for: kind)
        var function = ""
        var lines: [String] = []
        for line in generated.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("_imgcache"), line.hasSuffix("() {") {
                function = String(line.dropFirst("_imgcache".count).dropLast("() {".count))
            }
            let subcommand = function.hasPrefix("_") ? String(function.dropFirst()) : ""
            switch kind {
            case .bash: lines.append(contentsOf: bash(line, subcommand: subcommand, root: function.isEmpty))
            case .zsh:
                let refusedHere = refused[subcommand, default: []]
                let trimmed = line.drop { $0 == " " }
                if !refusedHere.contains(where: { trimmed.hasPrefix("'\($0)[") }) { lines.append(line) }
            default:
                let named = refused.contains { subcommand, options in
                    options.contains { line.contains("\"imgcache \(subcommand)\" \($0.dropFirst(2))'") }
                }
                if !named { lines.append(line) }
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func bash(_ line: String, subcommand: String, root: Bool) -> [String] {
        var line = line
        if root && line == "    local -a non_repeating_flags=(--version -h --help)" {
            let flags = ArgumentNormalizer.globalFlags.sorted().joined(separator: " ")
            line = "    local -a non_repeating_flags=(\(flags) --version -h --help)"
        } else if root && line == "    local -a non_repeating_options=()" {
            let options = ArgumentNormalizer.globalOptionsTakingValue.sorted().joined(separator: " ")
            line = "    local -a non_repeating_options=(\(options))"
        } else if line.hasPrefix("    non_repeating_flags=("), let options = refused[subcommand] {
            for option in options { line = line.replacingEvery(" \(option) ", with: " ") }
        }
        if subcommand == "help" && line.hasPrefix("    __imgcache_offer_flags_options") {
            let names = IMGCacheCommand.configuration.subcommands.map { $0._commandName }.joined(separator: " ")
            return [line, "    COMPREPLY+=($(compgen -W '\(names)' -- \"${cur}\"))"]
        }
        return [line]
    }
}

extension String {
    /// This string with every `target` replaced (Foundation is not linked).
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
