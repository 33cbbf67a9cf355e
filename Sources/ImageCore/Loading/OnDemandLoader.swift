import Synchronization

/// The `Downloader`, created by the first download that needs it: libcurl
/// is initialised then, not before, so a run answered from the cache (a
/// warm hit) never pays for it. Every user of the network holds this one
/// loader (the origin's downloads and HTTP remote storages share one multi
/// handle and its connections).
///
/// Thread safety: as `DataLoading`; the downloader is created under a lock.
final class OnDemandLoader: DataLoading {
    private let settings: Downloader.Configuration
    private let created = Mutex<(downloader: Downloader?, cancelled: Bool)>((nil, false))

    init(settings: Downloader.Configuration) {
        self.settings = settings
    }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        try await downloader().download(request)
    }

    /// As the downloader will send it, without creating the downloader.
    func requestAsSent(_ request: DownloadRequest) -> DownloadRequest {
        settings.aws.signing(request)
    }

    /// Cancels the downloader's transfers, if it was ever created, and
    /// those of one created later: a load past the manager's check when
    /// the signal came must not start a download that runs to its end.
    func cancelAll() {
        let downloader = created.withLock { created in
            created.cancelled = true
            return created.downloader
        }
        downloader?.cancelAll()
    }

    /// Closes the downloader, if it was ever created.
    func close() {
        created.withLock { $0.downloader }?.close()
    }

    private func downloader() throws -> Downloader {
        let (downloader, isNew, cancelled) = try created.withLock { created in
            if let existing = created.downloader { return (existing, false, created.cancelled) }
            let downloader = try Downloader(configuration: settings)
            created.downloader = downloader
            return (downloader, true, created.cancelled)
        }
        if isNew && cancelled { downloader.cancelAll() }
        return downloader
    }
}
