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
    private let created = Mutex<Downloader?>(nil)

    init(settings: Downloader.Configuration) {
        self.settings = settings
    }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        try await downloader().download(request)
    }

    /// Cancels the downloader's transfers, if it was ever created.
    func cancelAll() {
        created.withLock { $0 }?.cancelAll()
    }

    /// Closes the downloader, if it was ever created.
    func close() {
        created.withLock { $0 }?.close()
    }

    private func downloader() throws -> Downloader {
        try created.withLock { created in
            if let created { return created }
            let downloader = try Downloader(configuration: settings)
            created = downloader
            return downloader
        }
    }
}
