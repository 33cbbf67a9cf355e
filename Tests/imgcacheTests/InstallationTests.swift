import Foundation
import TestSupport
import Testing

/// Shell completions, `make uninstall` and `make deps`'s package choice
/// (issue 15, items 10 and 13).
@Suite struct InstallationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func shell(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CLI.Result {
        let scratch = try TemporaryDirectory()
        return try CLI.run(
            arguments, cacheDir: scratch.path, environment: environment, executable: URL(fileURLWithPath: executable))
    }

    /// bash's answer to `imgcache WORDS<TAB>`, from the generated completion script.
    func bashCompletions(_ words: [String]) throws -> [String] {
        let script = try CLI.run(["--generate-completion-script", "bash"], cacheDir: "/nonexistent").stdoutText
        let scratch = try TemporaryDirectory()
        let path = "\(scratch.path)/imgcache.bash"
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(path)'
            COMP_WORDS=(imgcache \(quoted)); COMP_CWORD=\(words.count); COMP_LINE="imgcache \(words.joined(separator: " "))"
            COMP_POINT=${#COMP_LINE}
            _imgcache imgcache "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let bin = CLI.executable.deletingLastPathComponent().path
        let result = try shell("/bin/bash", ["-c", program], environment: ["PATH": "\(bin):/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func bashCompletesOptionsAndDecodeValues() throws {
        #expect(try bashCompletions(["fetch", "--dec"]) == ["--decode"])
        #expect(try Set(bashCompletions(["fetch", "--decode", ""])) == ["pam", "ppm", "png"])
        #expect(try bashCompletions(["pre"]) == ["prefetch"])
    }

    /// Issue 26, finding 9: global options after `imgcache `, subcommands
    /// after `help `, and no option a subcommand refuses.
    @Test func bashOffersGlobalOptionsHelpTopicsAndNoRefusedOption() throws {
        #expect(try bashCompletions(["--cache"]) == ["--cache-dir"])
        #expect(try Set(bashCompletions(["--no-"])) == ["--no-progress", "--no-remote-storage"])
        #expect(try bashCompletions(["--cache-dir", "/tmp", "pre"]) == ["prefetch"])
        #expect(try Set(bashCompletions(["help", ""])) == ["fetch", "prefetch", "stat", "clean", "purge"])
        #expect(try bashCompletions(["prefetch", "--no-st"]).isEmpty)
        #expect(try bashCompletions(["fetch", "--no-st"]) == ["--no-store"])
        #expect(try bashCompletions(["stat", "--progr"]).isEmpty)
        #expect(try bashCompletions(["fetch", "--progr"]) == ["--progress"])
    }

    /// Issue 35, class 5: file and directory names where an option or the
    /// list argument takes one, before the subcommand as after it.
    @Test func bashCompletesPathsWhereTheyAreExpected() throws {
        let scratch = try TemporaryDirectory()
        let base = scratch.path
        try FileManager.default.createDirectory(atPath: "\(base)/cachedir", withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: "\(base)/list.txt", contents: Data()))
        #expect(try bashCompletions(["--cache-dir", "\(base)/c"]) == ["\(base)/cachedir"])
        #expect(try bashCompletions(["stat", "--cache-dir", "\(base)/"]) == ["\(base)/cachedir"])
        #expect(try bashCompletions(["fetch", "--output-dir", "\(base)/"]) == ["\(base)/cachedir"])
        #expect(try bashCompletions(["fetch", "-o", "\(base)/l"]) == ["\(base)/list.txt"])
        #expect(try bashCompletions(["fetch", "--output", "\(base)/l"]) == ["\(base)/list.txt"])
        #expect(try bashCompletions(["prefetch", "\(base)/l"]) == ["\(base)/list.txt"])
        #expect(try bashCompletions(["prefetch", "-j", "2", "\(base)/l"]) == ["\(base)/list.txt"])
    }

    @Test func zshAndFishOfferNoRefusedOption() throws {
        let fish = try CLI.run(["--generate-completion-script", "fish"], cacheDir: "/nonexistent").stdoutText
        #expect(fish.contains("\"imgcache fetch\" no-store'"))
        #expect(!fish.contains("\"imgcache prefetch\" no-store'"))
        #expect(!fish.contains("\"imgcache stat\" progress'") && fish.contains("\"imgcache fetch\" progress'"))
        let zsh = try CLI.run(["--generate-completion-script", "zsh"], cacheDir: "/nonexistent").stdoutText
        let prefetch = zsh.components(separatedBy: "_imgcache_prefetch() {")[1].components(separatedBy: "\n}")[0]
        #expect(!prefetch.contains("'--no-store[") && prefetch.contains("'--lifo["))
        #expect(zsh.components(separatedBy: "'--no-store[").count == 2, "fetch keeps it")
    }

    /// The same in a real fish (`complete -C` answers as a Tab would).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "needs fish"))
    func fishOffersNoRefusedOption() throws {
        let script = try CLI.run(["--generate-completion-script", "fish"], cacheDir: "/nonexistent").stdoutText
        let scratch = try TemporaryDirectory()
        let path = "\(scratch.path)/imgcache.fish"
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        func complete(_ line: String) throws -> [String] {
            let result = try shell(
                "/usr/bin/fish", ["-c", "source '\(path)'; complete -C'\(line)'"],
                environment: ["PATH": "\(CLI.executable.deletingLastPathComponent().path):/usr/bin:/bin"])
            return result.stdoutLines.map { String($0.split(separator: "\t")[0]) }
        }
        #expect(try complete("imgcache prefetch --no-st").isEmpty)
        #expect(try complete("imgcache fetch --no-st") == ["--no-store"])
        #expect(try complete("imgcache stat --progr").isEmpty)
        #expect(try complete("imgcache fetch --progr") == ["--progress"])
    }

    @Test func zshAndFishScriptsAreGenerated() throws {
        for shell in ["zsh", "fish"] {
            let result = try CLI.run(["--generate-completion-script", shell], cacheDir: "/nonexistent")
            #expect(result.status == 0)
            #expect(result.stdoutText.contains("--decode") && result.stdoutText.contains("pam"), "\(shell)")
        }
    }

    @Test func uninstallRemovesWhatInstallPuts() throws {
        let destination = try TemporaryDirectory()
        let files = [
            "bin/imgcache", "share/man/man1/imgcache.1", "share/bash-completion/completions/imgcache",
            "share/zsh/site-functions/_imgcache", "share/fish/vendor_completions.d/imgcache.fish",
        ]
        for file in files {
            let path = "\(destination.path)/usr/local/\(file)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        let result = try shell("/usr/bin/make", ["-s", "-C", Self.root, "uninstall", "DESTDIR=\(destination.path)"])
        #expect(result.status == 0, "\(result.stderr)")
        for file in files {
            #expect(
                !FileManager.default.fileExists(atPath: "\(destination.path)/usr/local/\(file)"), "\(file) left behind")
        }
    }

    @Test func theJPEGPackageIsChosenFromOSRelease() throws {
        let scratch = try TemporaryDirectory()
        let cases = [
            ("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n", "libjpeg62-turbo-dev"),
            ("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", "libjpeg-turbo8-dev"),
            ("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "libjpeg-turbo8-dev"),
            ("ID=raspbian\nID_LIKE=debian\n", "libjpeg62-turbo-dev"),
        ]
        for (index, (text, package)) in cases.enumerated() {
            let file = "\(scratch.path)/os-release-\(index)"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let result = try shell("/bin/sh", ["\(Self.root)/scripts/jpeg-dev-package.sh", file])
            #expect(result.stdoutText == package + "\n", "\(text)")
        }
    }
}
