import ArgumentParser
import ImageCore

/// `--remote-storage` and `--no-remote-storage`: which shared stores one run
/// uses instead of `remote-storage` in imgcache.conf or `$IMGCACHE_REMOTE_STORAGE`.
struct RemoteStorageOptions: ParsableArguments {
    @Option(
        name: .customLong("remote-storage"),
        help: ArgumentHelp(
            "Shared store asked after the disk and before the origin: http(s)://... (PUT/DELETE, e.g. nginx WebDAV), "
                + "redis://[user:password@]host[:port][/db] or s3://BUCKET[/PREFIX] (with |endpoint=URL, |region=R; "
                + "credentials as the AWS CLI finds them), with |read-only, |connect-timeout=MS, |timeout=MS, "
                + "|shards=A,B,... (the URL's * replaced by the key's shard), |lease=MS (how long a machine "
                + "downloading a URL makes the others wait for its upload, renewed while it downloads; default 6000; "
                + "Redis, S3, and HTTP servers that make collections with MKCOL) "
                + "(several: space-separated). Overrides remote-storage in imgcache.conf and $IMGCACHE_REMOTE_STORAGE.",
            valueName: "url"))
    var remoteStorage: String?

    @Flag(name: .customLong("no-remote-storage"), help: "Use no remote storage in this run.")
    var noRemoteStorage = false

    /// The environment's setting, which overrides the configuration file (as in ccache).
    static let environmentVariable = "IMGCACHE_REMOTE_STORAGE"

    /// The flag's value, and the environment's unless a flag overrides it
    /// (`--no-remote-storage` must work around a bad `$IMGCACHE_REMOTE_STORAGE`).
    func validate() throws {
        let overridden = noRemoteStorage || remoteStorage != nil
        for (source, text) in [
            ("--remote-storage", remoteStorage),
            (Self.environmentVariable, overridden ? nil : Environment.value(of: Self.environmentVariable)),
        ] {
            guard let text else { continue }
            do {
                _ = try RemoteStorageURL.parseList(text)
            } catch let error as ImageCoreError {
                throw ValidationError("\(source): \(error.message)")
            }
        }
    }

    /// The stores this run uses: none with `--no-remote-storage`, else the
    /// flag's, else the environment's, else the configuration file's.
    func resolved(configured: [RemoteStorageURL]) -> [RemoteStorageURL] {
        Self.resolved(remoteStorage: remoteStorage, noRemoteStorage: noRemoteStorage, configured: configured)
    }

    /// `resolved` for these options' values, read by the parser or by a plan
    /// (`PrefetchPlan`: neither option given).
    static func resolved(
        remoteStorage: String?, noRemoteStorage: Bool, configured: [RemoteStorageURL]
    ) -> [RemoteStorageURL] {
        if noRemoteStorage { return [] }
        guard let text = remoteStorage ?? Environment.value(of: Self.environmentVariable) else { return configured }
        return (try? RemoteStorageURL.parseList(text)) ?? []
    }
}
