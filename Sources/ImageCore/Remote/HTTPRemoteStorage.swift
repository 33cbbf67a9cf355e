/// A remote storage on an HTTP server that accepts PUT and DELETE (nginx's
/// WebDAV module, Apache mod_dav, bazel-remote): an entry is the object at
/// `BASE/imgcache/<layout version>/<key hash>`. Download leases live beside
/// the entries, where the server honours conditional PUT
/// (`HTTPRemoteStorage+Leases.swift`).
///
/// Requests go through the manager's downloader, so they share its libcurl
/// multi handle and keep-alive connections. Credentials in the URL are sent
/// as HTTP authentication and kept out of the URL libcurl logs.
final class HTTPRemoteStorage: RemoteStorage, CustomReflectable {
    let configured: RemoteStorageURL
    private let base: String
    private let credentials: String?
    private let network: any DataLoading
    /// What a lease's expiry is judged by.
    let clock: any TimeSource
    /// Whether the server honours `If-None-Match: *` on PUT, as leases need.
    let leaseProbe = ConditionalPutProbe()
    /// Other machines' leases as this machine has seen them renewed.
    let leaseSightings = LeaseSightings()

    init(_ configured: RemoteStorageURL, network: any DataLoading, clock: any TimeSource = SystemClock()) {
        self.configured = configured
        let (url, credentials) = configured.withoutCredentials
        base = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.credentials = credentials
        self.network = network
        self.clock = clock
    }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? {
        var request = self.request("GET", name)
        request.maxBytes = maxBytes
        guard case (_, let response?) = try await send(request, answers: [404]) else { return nil }
        return response.body ?? []
    }

    func put(_ name: String, _ object: [UInt8]) async throws {
        _ = try await write(name, object)
    }

    func delete(_ name: String) async throws -> Bool {
        try await send(request("DELETE", name), answers: [404]).status != 404
    }

    /// PUTs `body` as `name` with the given precondition headers; returns
    /// the status, 412 when a precondition failed. `patient` for a lease's
    /// write (`withLeasePatience`).
    func write(
        _ name: String, _ body: [UInt8], conditions: [HTTPHeader] = [], patient: Bool = false
    ) async throws -> Int {
        var request = self.request("PUT", name)
        request.uploadBody = body
        request.headers += conditions
        if patient { request = request.withLeasePatience() }
        let (status, _) = try await send(request, answers: [409, 412])
        guard status == 409 else { return status }
        // RFC 4918 servers (Apache mod_dav) create no missing parent
        // collections, as nginx's `create_full_put_path` does: make them, once.
        // 405: it exists; 403: Apache's answer to a MKCOL racing another
        // machine's (EEXIST, "Unable to create collection"). The PUT tried
        // again says whether the store takes writes.
        for collection in ["imgcache/", "imgcache/\(RemoteObject.layoutVersion)/"] {
            var make = self.request("MKCOL", "")
            make.url = "\(base)/\(collection)"
            _ = try await send(make, answers: [403, 405])
        }
        return try await send(request, answers: [412]).status
    }

    /// A request for object `name`, as every request to the store is made.
    func request(_ method: String, _ name: String) -> DownloadRequest {
        var request = DownloadRequest.toRemoteStorage(
            method, "\(base)/imgcache/\(RemoteObject.layoutVersion)/\(name)", configured)
        request.credentials = credentials
        return request
    }

    /// Sends one request. An error status listed in `answers` is returned
    /// (without a response) for the caller to act on; any other failure is
    /// an error naming the storage (masked) and the cause.
    func send(
        _ request: DownloadRequest, answers: Set<Int> = []
    ) async throws -> (
        status: Int, response: DownloadResponse?
    ) {
        do {
            let response = try await network.download(request)
            return (response.status, response)
        } catch let error as ImageCoreError {
            if let status = error.httpStatus, answers.contains(status) { return (status, nil) }
            if error.kind == .interrupted { throw error }
            var failure = ImageCoreError(
                .network, "\(request.method) \(configured): \(error.message)", httpStatus: error.httpStatus)
            failure.transportFault = error.transportFault
            throw failure
        }
    }
}
