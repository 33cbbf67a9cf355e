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
            help: ArgumentHelp(
                "Write to this file (once per URL; - is stdout), replaced whole: it keeps its permissions, a file you may not write is refused (exit 23), and a device or symbolic link is written through.",
                valueName: "file"),
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
                "Write the image re-encoded: jpeg, png, webp, gif, avif or jxl. An animation keeps every frame, its durations and loop count (PNG as APNG) unless --frame picks one; JPEG gets the first frame, and no alpha (the colour under it shows).",
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

        mutating func validate() throws {
            URLOperands.restore(&urls)
            OutputOperands.holder.restore(&output)
            try plan.validate()
            try download.refuseOptionsWithoutEffect()
        }

        /// What the parser read, as the plan a plain line is read to (`FetchPlan`).
        var plan: FetchPlan {
            FetchPlan(
                cacheDirectory: global.cacheDirectory, quiet: global.quiet, verbose: global.verbose, json: global.json,
                progress: global.progress, noRemoteStorage: global.remote.noRemoteStorage, offline: download.offline,
                placeholder: download.placeholder, staleIfError: download.staleIfError, insecure: download.insecure,
                retries: download.retries, timeout: download.timeout, connectTimeout: download.connectTimeout,
                maxTime: download.maxTime, noStore: noStore, output: output, outputDir: outputDir,
                decode: decode, frame: frame, thumbnail: thumbnail, maxPixels: maxPixels, encode: encode,
                quality: quality, askedColourSpace: askedColourSpace, noOrient: noOrient, path: path, urls: urls)
        }

        func run() async throws {
            try await Self.run(plan, download: download, remote: global.remote)
        }

        /// The run, for the values the parser read or a plan (`FetchPlan`:
        /// `download` and `remote` nil, no such option given but
        /// `--offline`, `--placeholder` and `--no-remote-storage`, which the
        /// plan holds, so the configuration is imgcache.conf's and the
        /// remote storage as `RemoteStorageOptions.resolved` gives it).
        static func run(_ plan: FetchPlan, download: DownloadOptions?, remote: RemoteStorageOptions?) async throws {
            try makeOutputDirectory(plan.outputDir)
            // Orientation and colour space are the requests' (`rendition`), not the manager's.
            let manager = try CacheSession.open(
                cacheDirectory: plan.cacheDirectory, quiet: plan.quiet,
                events: GlobalOptions<Fetch>.events(verbose: plan.verbose),
                remoteStorage: { configured in
                    remote?.resolved(configured: configured)
                        ?? RemoteStorageOptions.resolved(
                            remoteStorage: nil, noRemoteStorage: plan.noRemoteStorage, configured: configured)
                }, readOnly: true
            ) {
                download?.apply(to: &$0)
                $0.writesCache = !plan.noStore
            }
            SignalTrap.install { manager.cancelAll() }
            let progress = GlobalOptions<Fetch>.progressBar(quiet: plan.quiet, progress: plan.progress)
            let failures = await FetchOutput(plan: plan, download: download, manager: manager, progress: progress)
                .fetchAll()
            try? await manager.finish()
            try ExitStatus.exit(ExitStatus.code(for: failures))
        }
    }
}

extension IMGCacheCommand.Fetch {
    /// What the options ask to be made of each image (`FetchPlan.rendition`).
    var rendition: ImageRendition { plan.rendition }

    /// `--colorspace`, or its default (`FetchPlan.colourSpace`).
    var colourSpace: ColourSpace { plan.colourSpace }

    /// Creates --output-dir if needed. A directory that cannot be made or
    /// used (a regular file there, no permission) is output that cannot be
    /// written: exit 23, before anything is fetched (man page, EXIT STATUS).
    private static func makeOutputDirectory(_ outputDir: String?) throws {
        guard let outputDir else { return }
        do {
            try OutputFile.makeDirectory(outputDir)
        } catch {
            StandardStreams.printError("imgcache: \(ImageCoreError(reporting: error).message)")
            throw ExitCode(ExitStatus.code(for: .output))
        }
    }
}
