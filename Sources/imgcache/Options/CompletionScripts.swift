import ArgumentParser

/// The shell completion scripts, as swift-argument-parser generates them
/// with what it cannot know put right: bash offers the global options right
/// after `imgcache ` (they are accepted before the subcommand) and the
/// subcommands after `help `, and directories after a global `--cache-dir`
/// given before the subcommand. An option a subcommand always refuses is
/// not offered because it is not declared there (`--no-store` is fetch's)
/// or is hidden (`--progress` of stat, clean and purge: `ProgressChoice`).
enum CompletionScripts {
    /// The script for `shell` (bash, zsh or fish); nil for another shell,
    /// which the parser then reports.
    static func script(for shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let generated = IMGCacheCommand.completionScript(for: kind)
        guard kind == .bash else { return generated }
        var function = ""
        var lines: [String] = []
        for line in generated.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("_imgcache"), line.hasSuffix("() {") {
                function = String(line.dropFirst("_imgcache".count).dropLast("() {".count))
            }
            let subcommand = function.hasPrefix("_") ? String(function.dropFirst()) : ""
            lines.append(contentsOf: bash(line, subcommand: subcommand, root: function.isEmpty))
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
        }
        if root && line == "    __imgcache_offer_flags_options 0" {
            // A global option's value before the subcommand: the parser's
            // script completes option values only after one.
            let cases = ArgumentNormalizer.globalOptionsTakingValue.sorted().map { option in
                option == "--cache-dir"
                    ? "    '\(option)') __imgcache_add_completions -d; return ;;" : "    '\(option)') return ;;"
            }
            return [line, "    case \"${prev}\" in"] + cases + ["    esac"]
        }
        if subcommand == "help" && line.hasPrefix("    __imgcache_offer_flags_options") {
            let names = IMGCacheCommand.configuration.subcommands.map { $0._commandName }.joined(separator: " ")
            return [line, "    COMPREPLY+=($(compgen -W '\(names)' -- \"${cur}\"))"]
        }
        return [line]
    }
}
