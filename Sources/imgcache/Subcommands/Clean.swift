import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Clean: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean",
            abstract: "Remove entries unused for too long, then the least recently used until the cache fits.",
            discussion: """
                Also expires failed-URL records and removes temporary files older than an hour left by killed \
                processes. Defaults come from imgcache.conf (max-age 7d, no size limit). Safe to run from cron \
                while other imgcache processes use the cache; a second clean started meanwhile does nothing. \
                Example crontab line: 17 3 * * * imgcache clean -q --max-age 7d --max-size 2G
                """)

        @OptionGroup var global: GlobalOptions<Clean>

        @Option(
            help: ArgumentHelp(
                "Remove entries not used for longer than this (e.g. 7d; a bare number is seconds).",
                valueName: "duration"))
        var maxAge: String?

        @Option(
            help: ArgumentHelp(
                "Then remove the least recently used until the cache fits (e.g. 2G; none or 0: no size limit, as in imgcache.conf).",
                valueName: "size")
        )
        var maxSize: String?

        @Flag(help: "Only say what would be removed.")
        var dryRun = false

        func validate() throws {
            try refuseOptionsWithoutEffect()
            if let maxAge, Quantities.parseDuration(maxAge) == nil {
                throw ValidationError("--max-age: bad duration '\(maxAge)'")
            }
            if let maxSize, Quantities.parseSizeLimit(maxSize) == nil {
                throw ValidationError("--max-size: bad size '\(maxSize)'")
            }
        }

        func run() async throws {
            try await Self.run(
                CleanPlan(
                    cacheDirectory: global.cacheDirectory, quiet: global.quiet, verbose: global.verbose,
                    json: global.json, maxAge: maxAge, maxSize: maxSize, dryRun: dryRun))
        }

        /// The run, for the values the parser read or a plan (`CleanPlan`).
        static func run(_ plan: CleanPlan) async throws {
            let directory = try CacheSession.directory(named: plan.cacheDirectory, writing: true)
            _ = try CacheSession.settings(directory, quiet: plan.quiet)
            let cache = CacheAdministration(directory: directory)
            try await reportingFailures(in: cache.directory) {
                let report = try cache.clean(
                    maxAge: plan.maxAge.flatMap(Quantities.parseDuration),
                    maxSize: plan.maxSize.flatMap(Quantities.parseSizeLimit), dryRun: plan.dryRun,
                    events: GlobalOptions<Clean>.events(verbose: plan.verbose))
                guard !report.skippedBecauseBusy else {
                    if !plan.quiet { StandardStreams.printError("imgcache: another clean is running; nothing done") }
                    return
                }
                print(report, plan)
            }
        }

        private static func print(_ report: CacheCleaner.Report, _ plan: CleanPlan) {
            let removed = report.expiredEntries + report.evictedEntries
            if plan.json {
                var record = JSONRecord()
                record.add("dry_run", plan.dryRun)
                record.add("expired", report.expiredEntries)
                record.add("evicted", report.evictedEntries)
                record.add("bytes_removed", report.bytesRemoved)
                record.add("failed_records_removed", report.failedRecordsRemoved)
                record.add("stray_files_removed", report.strayFilesRemoved)
                record.add("entries_left", report.entriesLeft)
                record.add("bytes_left", report.bytesLeft)
                StandardStreams.print(record.text)
            } else if !plan.quiet {
                let verb = plan.dryRun ? "Would remove" : "Removed"
                StandardStreams.print(
                    "\(verb) \(counted(removed, "entry", "entries")) "
                        + "(\(report.expiredEntries) unused too long, \(report.evictedEntries) over the size limit), "
                        + "\(Quantities.formatSize(report.bytesRemoved)); "
                        + "\(counted(report.failedRecordsRemoved, "failed-URL record", "failed-URL records")), "
                        + "\(counted(report.strayFilesRemoved, "stray file", "stray files")). "
                        + "\(counted(report.entriesLeft, "entry", "entries")), \(Quantities.formatSize(report.bytesLeft)) "
                        + (plan.dryRun ? "would remain." : "remain."))
            }
        }
    }
}
