extension DownloadRequest {
    /// A request to a remote storage over HTTP (WebDAV or S3), as every one
    /// is made: short, whole in memory, at high priority, unpaced.
    static func toRemoteStorage(_ method: String, _ url: String, _ configured: RemoteStorageURL) -> DownloadRequest {
        var request = DownloadRequest(url: url)
        request.method = method
        request.expectsImage = false
        // Objects are checked whole before anything is stored: no body file.
        request.keepsBodyInMemory = true
        // A remote's timeout caps the whole request: a slow store is worse than none.
        request.timeout = configured.timeout
        request.maxTime = configured.timeout
        request.connectTimeout = configured.connectTimeout
        request.isPaced = false
        request.maxRedirects = 0
        // Every store request is short and someone waits for it: a lookup's
        // caller, a lease's download, and for an upload the other machines
        // polling for the entry. Origin downloads, long, come after.
        request.priority = .high
        request.headers = [HTTPHeader(name: "Accept", value: "*/*")]
        return request
    }

    /// The request given the patience a lease request needs: a server may
    /// hold a conditional PUT racing others for seconds (SeaweedFS does:
    /// 1–2 s with six at once, up to 5 s on a loaded machine), longer than
    /// a lookup's default timeout, and a lease request timed out would
    /// disable the store.
    func withLeasePatience() -> DownloadRequest {
        var request = self
        let patience = Swift.max(RemoteStorageURL.leaseRequestTimeout, timeout ?? 0)
        request.timeout = patience
        request.maxTime = patience
        return request
    }
}
