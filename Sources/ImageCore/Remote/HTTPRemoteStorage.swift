#if canImport(Glibc)
    import Glibc
#endif

/// A remote storage on an HTTP server that accepts PUT and DELETE (nginx's
/// WebDAV module, Apache mod_dav, bazel-remote): an entry is the object at
/// `BASE/imgcache/<layout version>/<key hash>`.
///
/// Requests go through the manager's downloader, so they share its libcurl
/// multi handle and keep-alive connections. Credentials in the URL are sent
/// as HTTP authentication and kept out of the URL libcurl logs.
final class HTTPRemoteStorage: RemoteStorage {
    let configured: RemoteStorageURL
    private let base: String
    private let credentials: String?
    private let network: any DataLoading

    init(_ configured: RemoteStorageURL, network: any DataLoading) {
        self.configured = configured
        let (url, credentials) = configured.withoutCredentials
        base = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.credentials = credentials
        self.network = network
    }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? {
        var request = self.request("GET", name)
        request.maxBytes = maxBytes
        guard let response = try await send(request, missingIsNil: true) else { return nil }
        return response.body ?? []
    }

    func put(_ name: String, _ object: [UInt8]) async throws {
        var request = self.request("PUT", name)
        request.uploadBody = object
        _ = try await send(request, missingIsNil: false)
    }

    func delete(_ name: String) async throws -> Bool {
        try await send(request("DELETE", name), missingIsNil: true) != nil
    }

    private func request(_ method: String, _ name: String) -> DownloadRequest {
        var request = DownloadRequest(url: "\(base)/imgcache/\(RemoteObject.layoutVersion)/\(name)")
        request.method = method
        request.expectsImage = false
        // Objects are checked whole before anything is stored: no body file.
        request.keepsBodyInMemory = true
        request.credentials = credentials
        // A remote's timeout caps the whole request: a slow store is worse than none.
        request.timeout = configured.timeout
        request.maxTime = configured.timeout
        request.connectTimeout = configured.connectTimeout
        request.isPaced = false
        request.maxRedirects = 0
        // A lookup is short and stands between the caller and its image.
        request.priority = method == "GET" ? .high : .normal
        request.headers = [HTTPHeader(name: "Accept", value: "*/*")]
        return request
    }

    /// Sends one request; a 404 is nil when `missingIsNil`, any other failure
    /// an error naming the storage (masked) and the cause.
    private func send(_ request: DownloadRequest, missingIsNil: Bool) async throws -> DownloadResponse? {
        do {
            return try await network.download(request)
        } catch let error as ImageCoreError {
            if missingIsNil && error.httpStatus == 404 { return nil }
            if error.kind == .interrupted { throw error }
            throw ImageCoreError(.network, "\(request.method) \(configured): \(error.message)")
        }
    }
}
