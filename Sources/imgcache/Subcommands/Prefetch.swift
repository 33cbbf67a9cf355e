import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Prefetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prefetch",
            abstract: "Warm the cache with URLs read from a file or stdin, one per line.",
            discussion: """
                Blank lines and lines starting with # are skipped; a line fetch would refuse as an argument \
                is refused in the same words, as a usage failure (imgcache: LINE: not an http or https URL ...), \
                and the others go on. Input is read as a stream, so memory stays \
                flat however long the list is. Prints no image data; a summary goes to stderr at the end \
                (unless -q), and --json prints one record per URL as each completes.
                """)

        @OptionGroup var global: GlobalOptions<Prefetch>
        @OptionGroup var download: DownloadOptions

        @Option(
            name: [.customShort("j"), .long], parsing: .unconditional,
            help: ArgumentHelp("Downloads at once.", valueName: "n"))
        var concurrency = Defaults.concurrentDownloads

        @Flag(help: "Newest first: start the most recently queued URLs first (SDWebImage's LIFO order).")
        var lifo = false

        @Argument(help: ArgumentHelp("File of URLs; - or none: stdin.", valueName: "file"), completion: .file())
        var file: String?

        func validate() throws {
            guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 256") }
            try refuseOptionsWithoutEffect()
        }

        func run() async throws {
            try await Self.run(
                PrefetchPlan(
                    cacheDirectory: global.cacheDirectory, quiet: global.quiet, verbose: global.verbose,
                    json: global.json, progress: global.progress, concurrency: concurrency, lifo: lifo, file: file),
                download: download, remote: global.remote)
        }

        /// The run, for the values the parser read or a plan (`PrefetchPlan`:
        /// `download` and `remote` nil, no such option given, so the
        /// requests are `ImageRequest(url:)`'s, the configuration
        /// imgcache.conf's, and the remote storage `$IMGCACHE_REMOTE_STORAGE`'s
        /// or imgcache.conf's, as the parser's defaults give).
        static func run(_ plan: PrefetchPlan, download: DownloadOptions?, remote: RemoteStorageOptions?) async throws {
            let input = try openInput(plan.file)
            let manager = try CacheSession.open(
                cacheDirectory: plan.cacheDirectory, quiet: plan.quiet,
                events: GlobalOptions<Prefetch>.events(verbose: plan.verbose),
                remoteStorage: { configured in
                    remote?.resolved(configured: configured)
                        ?? RemoteStorageOptions.resolved(
                            remoteStorage: nil, noRemoteStorage: false, configured: configured)
                }
            ) { configuration in
                download?.apply(to: &configuration)
                configuration.maxConcurrentDownloads = plan.concurrency
                configuration.order = plan.lifo ? .lifo : .fifo
                configuration.cache.memoryLimit = 0
            }
            SignalTrap.install { manager.cancelAll() }
            let progress = GlobalOptions<Prefetch>.progressBar(quiet: plan.quiet, progress: plan.progress)
            // A few loads beyond the download slots keep the slots busy
            // while the next URLs are looked up (fresh hits take no load).
            // Each load's worker keeps its task's frames for the run (about
            // 85 KB): four per slot would cost -j16 4 MiB more than four in
            // all, for no speed.
            let run = PrefetchRun(
                manager: manager, template: download?.request(for: "") ?? ImageRequest(url: ""), json: plan.json,
                quiet: plan.quiet, progress: progress, window: plan.concurrency + 4)
            let tally = await run.process(
                input, expectedTotal: progress == nil ? nil : URLListCount.count(input.fd))
            progress?.finish()
            try? await manager.finish()
            if let failure = tally.inputError { StandardStreams.printError("imgcache: \(failure.message)") }
            if !plan.quiet && (tally.inputError == nil || tally.total > 0) {
                StandardStreams.printError(tally.summary)
            }
            try ExitStatus.exit(ExitStatus.code(for: tally.failureKinds))
        }

        /// The URL list: the file named; `-`, stdin; none, stdin unless it is
        /// a terminal (then one line says what is needed, exit 64: nobody
        /// types a list of URLs, and pages of help would hide the point). A
        /// file that cannot be opened is exit 1.
        private static func openInput(_ file: String?) throws -> LineReader {
            if file == "-" { return .standardInput }
            guard let file else {
                guard !StandardStreams.isTerminal(0) else {
                    UsageError.exit(
                        subcommand: "prefetch", message: "give a file of URLs, or pipe them in (stdin is a terminal)")
                }
                return .standardInput
            }
            do {
                return try LineReader(opening: file)
            } catch {
                StandardStreams.printError("imgcache: \(ImageCoreError(reporting: error).message)")
                throw ExitCode(1)
            }
        }
    }
}
