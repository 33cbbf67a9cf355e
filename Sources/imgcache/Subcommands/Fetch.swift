import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Fetch images and write them, their pixels or their metadata to stdout.",
            discussion: """
                Each URL is looked up in memory, then in the disk cache, then on the network. \
                Output follows the order of the URLs. By default the original bytes are written; \
                if stdout is a terminal a one-line summary is printed instead. A cache that cannot be written \
                (read-only, a full disk, an I/O error) never stops delivery: hits are served, downloads are \
                still written, and one line per image says it was not cached (exit 0). --no-store creates \
                and changes no file of the cache.
                """)

        @OptionGroup var global: GlobalOptions<Fetch>
        @OptionGroup var download: DownloadOptions

        @Flag(help: "Do not write to the disk cache, nor create anything in it.")
        var noStore = false

        @Option(
            name: .shortAndLong, parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Write to this file (once per URL; - is stdout).", valueName: "file"),
            completion: .file())
        var output: [String] = []

        @Option(
            help: ArgumentHelp(
                "Write each image into this directory, named after the URL's last path segment (the cache key where that is empty or shared) with the format's extension; prints URL<TAB>path per file (unless -q).",
                valueName: "dir"),
            completion: .directory)
        var outputDir: String?

        @Option(help: ArgumentHelp("Write decoded pixels instead: pam (RGBA), ppm (RGB) or png.", valueName: "format"))
        var decode: OutputFormat.Pixels?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "With --decode, --encode or --thumbnail: only this frame of an animation (0-based).", valueName: "n"))
        var frame: Int?

        @Option(
            help: ArgumentHelp(
                "Scale down to fit inside WxH (aspect kept, never enlarged; every frame of an animation); written as --decode or --encode says, else re-encoded in the original's kind (JPEG, PNG or APNG, GIF, WebP, AVIF, JPEG XL).",
                valueName: "WxH"))
        var thumbnail: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Scale down to at most this many pixels (aspect kept), written like --thumbnail.", valueName: "n"))
        var maxPixels: Int?

        @Option(
            help: ArgumentHelp(
                "Write the image re-encoded: jpeg, png, webp, gif, avif or jxl. An animation keeps every frame, its durations and loop count (PNG as APNG) unless --frame picks one; JPEG gets the first frame.",
                valueName: "format"))
        var encode: OutputFormat.Encoding?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "With --encode jpeg, webp, avif or jxl, or a thumbnail written as one: quality 1-100 (JPEG default 85; WebP default 75 from JPEG, lossy WebP, AVIF or HEIC, else lossless; AVIF default 60, libavif speed 10; JPEG XL default 90 as cjxl's -q, 100 lossless, libjxl effort 3).",
                valueName: "q"))
        var quality: Int?

        @Option(
            name: .customLong("colorspace"),
            help: ArgumentHelp(
                "srgb: convert pixels to sRGB through the image's ICC profile (Little CMS), no profile written; original: keep the stored values and, in encoded output, the profile. Default srgb for --decode, original otherwise.",
                valueName: "space"))
        /// `--colorspace` as given; `colourSpace` is what applies.
        var askedColourSpace: ColourSpace?

        @Flag(help: "Keep pixels in stored order: do not turn them upright per the JPEG's EXIF orientation.")
        var noOrient = false

        @Flag(
            help: ArgumentHelp(
                "Print the absolute path of each cached image file instead of its bytes (exit 8 for an image the cache could not store)."
            ))
        var path = false

        @Argument(help: ArgumentHelp("http, https or s3://BUCKET/KEY URLs.", valueName: "url"))
        var urls: [String]

        func validate() throws {
            try validateURLs(urls)
            if !output.isEmpty && output.count != urls.count {
                throw ValidationError("give -o once per URL (\(urls.count)), or use --output-dir")
            }
            if !output.isEmpty && outputDir != nil { throw ValidationError("-o and --output-dir cannot be combined") }
            let modes = [global.json, path, decode != nil && output.isEmpty && outputDir == nil].filter { $0 }
            if modes.count > 1 { throw ValidationError("choose one of --json, --path and --decode for stdout") }
            if (global.json && !output.isEmpty) || (path && (!output.isEmpty || outputDir != nil)) {
                throw ValidationError(
                    "--json and --path print to stdout; they do not take -o (--json takes --output-dir)")
            }
            if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
            if frame != nil && !needsPixels { throw ValidationError("--frame needs --decode, --encode or --thumbnail") }
            if path && noStore { throw ValidationError("--path needs the disk cache; drop --no-store") }
            if let thumbnail, ScaleTarget(thumbnail: thumbnail) == nil {
                let sizes = thumbnail.lowercased().split(separator: "x", omittingEmptySubsequences: false).map {
                    Int($0)
                }
                guard sizes.count == 2, sizes.allSatisfy({ $0 != nil }) else {
                    throw ValidationError("--thumbnail must be WIDTHxHEIGHT, e.g. 512x512")
                }
                throw ValidationError("--thumbnail sizes must be positive, got '\(thumbnail)'")
            }
            if let maxPixels, maxPixels < 1 { throw ValidationError("--max-pixels must be 1 or more") }
            if thumbnail != nil && maxPixels != nil {
                throw ValidationError("choose one of --thumbnail and --max-pixels")
            }
            if encode != nil && decode != nil { throw ValidationError("choose one of --decode and --encode") }
            if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100") }
            if (encode != nil || scaleTarget != nil) && path {
                throw ValidationError("--path prints the original; drop --thumbnail/--encode")
            }
            try refuseOptionsWithoutEffect()
        }

        func run() async throws {
            try makeOutputDirectory()
            // Orientation and colour space are the requests' (`rendition`), not the manager's.
            let manager = try CacheSession.open(global, readOnly: true) {
                download.apply(to: &$0)
                $0.writesCache = !noStore
            }
            SignalTrap.install { manager.cancelAll() }
            let failures = await FetchOutput(command: self, manager: manager, progress: global.progressBar()).fetchAll()
            try? await manager.finish()
            try ExitStatus.exit(ExitStatus.code(for: failures))
        }
    }
}

extension IMGCacheCommand.Fetch {
    /// The size asked for by --thumbnail or --max-pixels.
    var scaleTarget: ScaleTarget? {
        thumbnail.flatMap(ScaleTarget.init(thumbnail:)) ?? maxPixels.map(ScaleTarget.maxPixels)
    }

    /// `--colorspace`, or its default: sRGB for `--decode`, the original
    /// (profile kept) for encoded output.
    var colourSpace: ColourSpace { askedColourSpace ?? (decode != nil ? .srgb : .original) }

    /// Whether the output needs decoded pixels.
    var needsPixels: Bool { rendition.needsPixels }

    /// What the options ask to be made of each image. The re-encoding is
    /// --encode, or, for a scaled image without --decode, the original's kind.
    var rendition: ImageRendition {
        var rendition = ImageRendition()
        rendition.decodesPixels = decode != nil
        rendition.frame = frame
        rendition.scale = scaleTarget
        rendition.encoding =
            encode.map { .format($0) } ?? (scaleTarget != nil && decode == nil ? .matchingOriginal : nil)
        rendition.quality = quality
        rendition.appliesOrientation = !noOrient
        rendition.colourSpace = colourSpace
        return rendition
    }

    /// Creates --output-dir if needed. A directory that cannot be made or
    /// used (a regular file there, no permission) is output that cannot be
    /// written: exit 23, before anything is fetched (man page, EXIT STATUS).
    private func makeOutputDirectory() throws {
        guard let outputDir else { return }
        do {
            try OutputFile.makeDirectory(outputDir)
        } catch {
            StandardStreams.printError("imgcache: \(ImageCoreError(reporting: error).message)")
            throw ExitCode(ExitStatus.code(for: .output))
        }
    }
}
