import ImageCore

/// Formats `stat` output: an aligned table for people, JSON Lines for scripts.
enum StatReport {
    static func printSummary(
        _ summary: CacheSummary, directory: CacheDirectory, configuration: CacheConfiguration,
        json: Bool
    ) {
        let counters = summary.namedCounters
        if json {
            var record = JSONRecord()
            record.add("cache_dir", directory.root)
            record.add("entries", summary.entries)
            record.add("bytes", summary.bytes)
            record.add("max_size", configuration.maxSize)
            record.add("max_age_s", Int(configuration.maxAge))
            record.add("failed_ttl_s", Int(configuration.failedTTL))
            record.add("oldest_use", summary.oldestUse.map(HTTPDate.iso8601))
            record.add("newest_use", summary.newestUse.map(HTTPDate.iso8601))
            record.add("failed_urls", summary.failedURLs)
            if !configuration.remoteStorage.isEmpty {
                record.add(
                    "remote_storage",
                    configuration.remoteStorage.map { storage in
                        var item = JSONRecord()
                        item.add("url", storage.description)
                        return item
                    })
            }
            var counterRecord = JSONRecord()
            for (name, value) in counters { counterRecord.add(name.replacingDashes, value) }
            record.add("counters", counterRecord)
            if !summary.storageCounters.isEmpty {
                record.add(
                    "remote_counters",
                    summary.storageCounters.keys.sorted().map { storage in
                        var item = JSONRecord()
                        item.add("storage", storage)
                        for counter in remoteCounters {
                            item.add(counter.rawValue.replacingDashes, summary.storageCounters[storage]?[counter] ?? 0)
                        }
                        return item
                    })
            }
            StandardStreams.print(record.text)
            return
        }
        var rows: [(String, String)] =
            [
                ("Cache directory", directory.root),
                ("Entries", String(summary.entries)),
                (
                    "Size",
                    Quantities.formatSize(summary.bytes)
                        + " (limit: \(configuration.maxSize.map(Quantities.formatSize) ?? "none"))"
                ),
                ("Max age", Quantities.formatDuration(configuration.maxAge)),
                ("Oldest use", summary.oldestUse.map(HTTPDate.iso8601) ?? "-"),
                ("Newest use", summary.newestUse.map(HTTPDate.iso8601) ?? "-"),
                ("Failed URLs", "\(summary.failedURLs) (kept \(Quantities.formatDuration(configuration.failedTTL)))"),
                (
                    "Remote storage",
                    configuration.remoteStorage.isEmpty
                        ? "none"
                        : configuration.remoteStorage.map(\.description).joined(separator: " ")
                ),
            ]
            + counters.map { (name, value) in
                (
                    name.prefix(1).uppercased() + name.dropFirst().replacingDashes(with: " "),
                    name == "bytes-downloaded" ? Quantities.formatSize(value) : String(value)
                )
            }
        for storage in summary.storageCounters.keys.sorted() {
            let counts = summary.storageCounters[storage] ?? [:]
            let text: [String] = remoteCounters.map { counter in
                "\(counter.rawValue.dropFirst("remote-".count)) \(counts[counter, default: 0])"
            }
            rows.append(("Remote \(storage)", text.joined(separator: ", ")))
        }
        printTable(rows)
    }

    /// The counters kept per remote storage (each shard of a sharded one).
    private static let remoteCounters: [Statistics.Counter] = [
        .remoteHits, .remoteMisses, .remoteErrors, .remoteUploads,
    ]

    static func printEntry(
        url: String, _ status: CacheAdministration.EntryStatus, placeholder: ImagePlaceholder? = nil, json: Bool
    ) {
        let url = URLUserInfo.shown(url)
        let (key, entry, failure) = (status.key, status.entry, status.failure)
        if json {
            var record = JSONRecord()
            record.add("url", url)
            record.add("key", key.hash)
            record.add("cached", entry != nil)
            if let entry {
                record.add("format", entry.info.format.rawValue)
                record.add("width", entry.info.width)
                record.add("height", entry.info.height)
                record.add("frames", entry.info.frameCount)
                record.add("delays_ms", entry.info.frameDurations)
                record.add("bytes", entry.byteCount)
                record.add("path", entry.path)
                record.add("stored_at", HTTPDate.iso8601(entry.storedAt))
                record.add("last_used", HTTPDate.iso8601(entry.lastUsed))
                record.add("etag", entry.etag)
                record.add("last_modified", entry.lastModified)
                record.add("expires", entry.expires.map(HTTPDate.iso8601))
                record.add(placeholder)
                record.add(
                    "variants",
                    entry.variants.map { variant in
                        var item = JSONRecord()
                        item.add("transform", variant.transform)
                        item.add("bytes", variant.byteCount)
                        item.add("file", variant.fileName)
                        return item
                    })
            }
            if let failure {
                var failed = JSONRecord()
                failed.add("kind", failure.kind.rawValue)
                failed.add("status", failure.httpStatus)
                failed.add("message", failure.message)
                failed.add("failed_at", HTTPDate.iso8601(failure.failedAt))
                failed.add("until", HTTPDate.iso8601(failure.expiresAt))
                failed.add("limit", failure.limit?.name.rawValue)
                failed.add("limit_value", failure.limit?.value)
                record.add("failed", failed)
            }
            StandardStreams.print(record.text)
            return
        }
        StandardStreams.print("\(url): \(entry == nil ? "not cached" : "cached")")
        var rows: [(String, String)] = []
        if let entry {
            rows += [
                ("  Path", entry.path ?? "-"),
                ("  Size", "\(Quantities.formatSize(entry.byteCount)) (\(entry.byteCount) bytes)"),
                (
                    "  Format",
                    "\(entry.info.format.rawValue), \(entry.info.width)×\(entry.info.height), "
                        + "\(entry.info.frameCount) frame\(entry.info.frameCount == 1 ? "" : "s")"
                ),
                ("  Stored at", HTTPDate.iso8601(entry.storedAt)),
                ("  Last used", HTTPDate.iso8601(entry.lastUsed)),
                ("  Expires", entry.expires.map(HTTPDate.iso8601) ?? "-"),
                ("  ETag", entry.etag ?? "-"),
                ("  Last-Modified", entry.lastModified ?? "-"),
            ]
            for (index, variant) in entry.variants.enumerated() {
                rows.append(
                    (
                        index == 0 ? "  Variants" : "",
                        "\(variant.transform) (\(Quantities.formatSize(variant.byteCount)))"
                    ))
            }
        }
        rows.append(
            ("  Failed list", failure.map { "yes: \($0.message), until \(HTTPDate.iso8601($0.expiresAt))" } ?? "no"))
        printTable(rows)
    }

    private static func printTable(_ rows: [(String, String)]) {
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            StandardStreams.print(name + String(repeating: " ", count: width - name.count + 2) + value)
        }
    }
}

private extension StringProtocol {
    var replacingDashes: String { replacingDashes(with: "_") }

    func replacingDashes(with replacement: String) -> String {
        split(separator: "-", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
