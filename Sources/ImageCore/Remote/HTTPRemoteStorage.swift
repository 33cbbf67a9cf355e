/// A remote storage on an HTTP server that accepts PUT and DELETE (nginx's
/// WebDAV module, Apache mod_dav, bazel-remote): an entry is the object at
/// `BASE/imgcache/<layout version>/<key hash>`. Download leases live beside
/// the entries, where the server makes collections (MKCOL)
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
    /// Whether the server makes collections (MKCOL) one at a time, as leases need.
    let leaseProbe = LeaseProbe()
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
        try await makeParents()
        return try await send(request, answers: [412]).status
    }

    /// Makes the collection `name` (ending in `/`) with MKCOL: true if this
    /// request made it, false if it exists (405; 403 is Apache's answer to
    /// one racing another's: EEXIST, "Unable to create collection"). A
    /// `mkdir` on Apache mod_dav_fs and nginx, so of requests racing for one
    /// name exactly one makes it.
    func makeCollection(_ name: String) async throws -> Bool {
        let make = request("MKCOL", name).withLeasePatience()
        var status = try await send(make, answers: [403, 405, 409]).status
        if status == 409 {
            try await makeParents()
            status = try await send(make, answers: [403, 405]).status
        }
        return status != 403 && status != 405
    }

    /// Makes the collections above the objects: RFC 4918 servers (Apache
    /// mod_dav) create no missing parents for a PUT or MKCOL, as nginx's
    /// `create_full_put_path` does for a PUT. 405: it exists; 403: Apache's
    /// answer to a MKCOL racing another machine's. The request tried again
    /// says whether the store takes writes.
    private func makeParents() async throws {
        for collection in ["imgcache/", "imgcache/\(RemoteObject.layoutVersion)/"] {
            var make = self.request("MKCOL", "")
            make.url = "\(base)/\(collection)"
            _ = try await send(make, answers: [403, 405])
        }
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
