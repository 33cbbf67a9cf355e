/// A remote storage in an S3 bucket (AWS, or an S3-compatible server:
/// SeaweedFS, MinIO, Ceph RGW, R2): an entry is the object
/// `PREFIX/imgcache/<layout version>/<key hash>`, laid out and verified as
/// in an HTTP store. Download leases live beside the entries
/// (`S3RemoteStorage+Leases.swift`).
///
/// Every request is signed with SigV4 by libcurl (`AWSSettings`, the
/// store's `|endpoint=` and `|region=` over the run's), through the
/// manager's downloader, so it shares the multi handle and its connections.
/// An error names the store as `s3://BUCKET/PREFIX` and the S3 error code,
/// never a credential.
final class S3RemoteStorage: RemoteStorage, CustomReflectable {
    let configured: RemoteStorageURL
    private let bucket: String
    /// The key prefix, with a trailing slash (empty for none).
    private let prefix: String
    private let settings: AWSSettings
    private let network: any DataLoading
    /// What a lease's expiry is judged by, and a raced write waits on.
    let clock: any TimeSource
    /// Whether the endpoint honours `If-None-Match: *` on PUT, as leases need.
    let leaseProbe = ConditionalPutProbe()

    init(
        _ configured: RemoteStorageURL, network: any DataLoading, aws: AWSSettings,
        clock: any TimeSource = SystemClock()
    ) {
        self.configured = configured
        let location = S3ObjectURL(configured.url) ?? S3ObjectURL(bucket: "", key: "")
        bucket = location.bucket
        let key = location.key.split(separator: "/").joined(separator: "/")
        prefix = key.isEmpty ? "" : key + "/"
        var settings = aws
        if let endpoint = configured.endpoint { settings.endpoint = endpoint }
        if let region = configured.region { settings.region = region }
        self.settings = settings
        self.network = network
        self.clock = clock
    }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? {
        var request = self.request("GET", name)
        request.maxBytes = maxBytes
        guard case (_, let response?) = try await send(request, absent: true) else { return nil }
        return response.body ?? []
    }

    func put(_ name: String, _ object: [UInt8]) async throws {
        _ = try await write(name, object)
    }

    /// S3 answers a DELETE with 204 whether the object was there or not:
    /// a GET of its first byte first tells which.
    func delete(_ name: String) async throws -> Bool {
        var probe = request("GET", name)
        probe.headers.append(HTTPHeader(name: "Range", value: "bytes=0-0"))
        guard case (_, _?) = try await send(probe, absent: true) else { return false }
        _ = try await send(request("DELETE", name))
        return true
    }

    /// PUTs `body` as `name` with the given precondition headers; returns
    /// the status: 412 when a precondition failed, 409 when another
    /// conditional write raced this one.
    func write(
        _ name: String, _ body: [UInt8], conditions: [HTTPHeader] = [], patient: Bool = false
    ) async throws
        -> Int
    {
        var request = self.request("PUT", name)
        request.uploadBody = body
        request.headers += conditions
        if patient { request = request.withLeasePatience() }
        return try await send(request, answers: [409, 412]).status
    }

    /// A signed request for object `name`.
    func request(_ method: String, _ name: String) -> DownloadRequest {
        let key = "\(prefix)imgcache/\(RemoteObject.layoutVersion)/\(name)"
        var request = DownloadRequest.toRemoteStorage(
            method, S3ObjectURL(bucket: bucket, key: key).httpURL(endpoint: settings.endpoint, region: settings.region),
            configured)
        request.sign(with: settings.credentials, region: settings.region)
        return request
    }

    /// Sends one request. A 404 for a missing key (`absent`) and an error
    /// status listed in `answers` are returned (without a response) for the
    /// caller to act on; anything else is an error naming the store and
    /// the S3 error code: a 404 for a missing bucket, a 403 for a wrong
    /// secret, a timeout.
    func send(
        _ request: DownloadRequest, absent: Bool = false, answers: Set<Int> = []
    ) async throws -> (
        status: Int, response: DownloadResponse?
    ) {
        do {
            let response = try await network.download(request)
            return (response.status, response)
        } catch let error as ImageCoreError {
            if let status = error.httpStatus, answers.contains(status) { return (status, nil) }
            if absent, error.httpStatus == 404, error.serviceCode == nil || error.serviceCode == "NoSuchKey" {
                return (404, nil)
            }
            if error.kind == .interrupted { throw error }
            var failure = ImageCoreError(
                .network, "\(configured.maskedURL): \(error.message)", httpStatus: error.httpStatus)
            failure.serviceCode = error.serviceCode
            failure.transportFault = error.transportFault
            throw failure
        }
    }
}
