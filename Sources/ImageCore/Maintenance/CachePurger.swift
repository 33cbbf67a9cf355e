/// Empties a cache directory, or parts of it, while other processes may use
/// it. Each part is renamed into the temporary area first, which is atomic,
/// and deleted from there, so nobody sees a half-emptied part.
public struct CachePurger: Sendable {
    private let directory: CacheDirectory

    /// A purger for `directory`.
    public init(directory: CacheDirectory) {
        self.directory = directory
    }

    /// Removes every entry, the failed-URL list and the counters.
    public func purgeEverything() throws {
        try purge(directory.entries)
        try purgeFailedList()
        try purge(directory.stats)
    }

    /// Forgets the failed-URL list only.
    public func purgeFailedList() throws {
        try purge(directory.failed)
    }

    private func purge(_ path: String) throws {
        guard POSIXFile.status(path) != nil else { return }
        let placement = directory.recordPlacement()
        let trash = "\(directory.temporary)/purge-\(UniqueName.make())"
        try POSIXFile.rename(path, to: trash)
        // The failed-URL directory is made again by the next failure.
        if path != directory.failed { try POSIXFile.makeDirectories(path) }
        if path == directory.entries { try CacheDirectory.makeShards(in: path, placement: placement) }
        try POSIXFile.removeTree(trash)
    }
}
