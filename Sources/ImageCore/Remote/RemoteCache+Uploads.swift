import Synchronization

/// Writing to the remote tier: each verified download goes to every
/// writable storage that is not off, in a task of its own, and `finish()`
/// waits for those tasks and says which stores took none of the run's
/// uploads.
extension RemoteCache {
    /// Uploads an entry to every writable storage that is not off, in
    /// tasks of their own (`finish()` waits for them).
    func upload(_ entry: CacheEntry, bytes: [UInt8], key: CacheKey, url: String) {
        let name = key.hash
        let writable = backendIndices(for: name).filter { !backends[$0].configured.readOnly }.compactMap { index in
            health.ticket(index).map { (index, $0) }
        }
        guard !writable.isEmpty else { return }
        let object = RemoteObject.encode(entry, bytes: bytes)
        for (index, ticket) in writable {
            let storage = backends[index]
            // Waiters poll the lease's store: its lease goes once the entry is there (or failed to get there).
            let lease = leases.withLock { $0[name] }.flatMap { $0.index == index && $0.startUpload() ? $0 : nil }
            let task = Task { [self] in
                var refused = false
                do {
                    try await storage.put(name, object)
                    health.record(index, ticket, .answered, writing: true)
                    uploadTally.withLock { $0[index, default: (0, nil)].done += 1 }
                    statistics.add(.remoteUploads, storage: storage.configured.maskedURL)
                    events.emit("uploaded to remote storage \(storage.configured): \(url)")
                } catch let error as ImageCoreError {
                    refused = !error.isPassingStoreFailure && error.kind != .interrupted
                    // An answer (a 5xx), not a timeout: a stall costs its request only, said with -v.
                    if error.httpStatus != nil {
                        uploadTally.withLock { $0[index, default: (0, nil)].lastFailure = error.message }
                    }
                    if fail(index, storage, error, ticket, writing: true, warns: false) {
                        warnings.emit(
                            "remote storage \(storage.configured) refused a write (\(error.message)); "
                                + "nothing more is uploaded to it in this run")
                    }
                } catch {}
                if let lease { await release(lease, evenIfOff: refused) }
            }
            uploads.withLock { $0.append(task) }
        }
    }

    /// Runs `work` as a task that `finish()` waits for.
    func track(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        uploads.withLock { $0.append(task) }
    }

    /// Waits for every upload started so far, then says which stores took
    /// none of the run's uploads.
    func finish() async {
        while true {
            let pending = uploads.withLock { tasks in
                defer { tasks.removeAll() }
                return tasks
            }
            if pending.isEmpty { break }
            for task in pending { await task.value }
        }
        warnOfLostUploads()
    }

    /// One line per store whose every upload of the run failed, one at
    /// least answered with a status that costs only its request (a 5xx; a
    /// timeout is said with -v only): a store off for the run has been
    /// reported already. nginx answers every PUT with 500 until
    /// its root exists; a machine that uploads one or two entries a run
    /// never reaches the three strikes that turn the store off and say so,
    /// and its entries were never shared, silently.
    private func warnOfLostUploads() {
        let lost = uploadTally.withLock { tally in
            defer { tally.removeAll() }
            return tally.filter { $0.value.done == 0 }.compactMap { index, outcome in
                outcome.lastFailure.map { (index, $0) }
            }
        }
        for (index, message) in lost.sorted(by: { $0.0 < $1.0 }) where !health.isDisabled(index) {
            warnings.emit(
                "remote storage \(backends[index].configured): no upload went through in this run (\(message))")
        }
    }
}
