import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch images and write them, their pixels or their metadata to stdout.",
            discussion: """
                Each URL is looked up in memory, then in the disk cache, then on the network. \
                Output follows the order of the URLs. By default the original bytes are written; \
                if stdout is a terminal a one-line summary is printed instead.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var download: DownloadOptions

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file (once per URL).", valueName: "file"))
        var output: [String] = []

        @Option(help: ArgumentHelp("Write each image into this directory, named by cache key and format.", valueName: "dir"))
        var outputDir: String?

        @Option(help: ArgumentHelp("Write decoded pixels instead: pam (RGBA), ppm (RGB) or png.", valueName: "format"))
        var decode: DecodeFormat?

        @Option(help: ArgumentHelp("With --decode: only this frame of an animation (0-based).", valueName: "n"))
        var frame: Int?

        @Flag(help: "Print the absolute path of each cached image file instead of its bytes.")
        var path = false

        @Argument(help: ArgumentHelp("http or https URLs.", valueName: "url"))
        var urls: [String]

        func validate() throws {
            try validateURLs(urls)
            if !output.isEmpty && output.count != urls.count {
                throw ValidationError("give -o once per URL (\(urls.count)), or use --output-dir")
            }
            if !output.isEmpty && outputDir != nil { throw ValidationError("-o and --output-dir cannot be combined") }
            let modes = [global.json, path, decode != nil && output.isEmpty && outputDir == nil].filter { $0 }
            if modes.count > 1 { throw ValidationError("choose one of --json, --path and --decode for stdout") }
            if (global.json || path) && (!output.isEmpty || outputDir != nil) {
                throw ValidationError("--json and --path print to stdout; they do not take -o or --output-dir")
            }
            if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
            if frame != nil && decode == nil { throw ValidationError("--frame needs --decode") }
            if path && download.noStore { throw ValidationError("--path needs the disk cache; drop --no-store") }
        }

        func run() async throws {
            let manager = try CacheSession.open(global, keyPolicy: download.keyPolicy, cookieJar: download.cookieJar,
                                                maxPerHost: download.maxPerHost)
            SignalTrap.install { manager.cancelAll() }
            let writer = FetchOutput(command: self, manager: manager, progress: global.progressBar())
            let failures = await writer.fetchAll()
            try? await manager.finish()
            try ExitStatus.exit(ExitStatus.code(for: failures))
        }
    }
}

/// `--decode`'s values; a CLI-side enum because conforming ImageCore's type to
/// an ArgumentParser protocol would be a retroactive conformance.
enum DecodeFormat: String, CaseIterable, ExpressibleByArgument {
    case pam, ppm, png

    var pixelFormat: PixelOutputFormat {
        switch self {
        case .pam: .pam
        case .ppm: .ppm
        case .png: .png
        }
    }
}
