/// The remote-storage seam: a shared store of cache entries that many
/// machines read and write (nginx with WebDAV, Redis, S3), looked up after the
/// local disk and before the origin.
///
/// Objects are named by the cache key's hash; each backend adds the
/// versioned layout prefix (`RemoteObject.layoutVersion`), so a future
/// format never reads old objects as new ones.
///
/// Thread safety: implementations may be called from any task concurrently.
/// Errors are `ImageCoreError`s whose messages never hold credentials.
public protocol RemoteStorage: Sendable {
    /// What was configured (its `description` is masked).
    var configured: RemoteStorageURL { get }
    /// The object named `name`, or nil if the store does not have it.
    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]?
    /// Stores (or replaces) the object named `name`.
    func put(_ name: String, _ object: [UInt8]) async throws
    /// Deletes the object named `name`; false if it was not there.
    func delete(_ name: String) async throws -> Bool
}

extension RemoteStorage {
    /// What a store shows when reflected (`dump()`): its configuration,
    /// password masked, never the credentials a backend keeps apart from it.
    public var customMirror: Mirror {
        Mirror(self, children: ["configured": configured], displayStyle: .class)
    }
}

/// A remote storage's backend for a configured URL. HTTP and S3 go through
/// `network` (the manager's libcurl multi handle, so connections are shared
/// and reused), S3 signed as `aws` says; Redis opens its own connections on
/// first use. HTTP and S3 leases say when they run out themselves, judged
/// by `clock` (Redis expires its own).
func makeRemoteStorage(
    _ configured: RemoteStorageURL,
    network: any DataLoading, aws: AWSSettings, clock: any TimeSource
) -> any RemoteStorage {
    switch configured.scheme {
    case .http: HTTPRemoteStorage(configured, network: network, clock: clock)
    case .redis: RedisRemoteStorage(configured)
    case .s3: S3RemoteStorage(configured, network: network, aws: aws, clock: clock)
    }
}
