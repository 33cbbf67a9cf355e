import ArgumentParser
import ImageCore

/// `purge URL... --remote`: deletes the URLs' entries from every writable
/// remote storage, one line per URL and storage (`-v`, or `--json`).
enum RemotePurge {
    static func run(
        _ urls: [String], global: GlobalOptions<some GlobalOptionsHelp>, keyPolicy: CacheKeyPolicy
    ) async throws {
        let manager = try CacheSession.open(global) { $0.keyPolicy = keyPolicy }
        var failures: [ImageCoreError] = []
        for given in urls {
            let url = URLUserInfo.shown(given)
            for (storage, outcome) in await manager.removeFromRemoteStorage(given) {
                switch outcome {
                case .success(let removed):
                    if global.json {
                        var record = JSONRecord()
                        record.add("url", url)
                        record.add("remote_storage", storage)
                        record.add("removed", removed)
                        StandardStreams.print(record.text)
                    } else if global.verbose {
                        StandardStreams.printError(
                            "imgcache: \(url): \(removed ? "removed from" : "was not in") \(storage)")
                    }
                case .failure(let error):
                    failures.append(error)
                    StandardStreams.printError("imgcache: \(url): \(error.message)")
                }
            }
        }
        try await manager.finish()
        if !failures.isEmpty { throw ExitCode(ExitStatus.code(for: .network)) }
    }
}
