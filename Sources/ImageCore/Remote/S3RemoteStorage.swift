import Synchronization

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
///
/// A key it may not read is a missing one (`isMissingKey`): under the
/// least-privilege policy (`s3:GetObject` and `s3:PutObject`, no
/// `s3:ListBucket`) AWS answers a GET of a missing key with 403
/// `AccessDenied`, not 404. It sends no HEAD, whose error has no body to
/// tell `AccessDenied` from a wrong secret: `delete` asks with a ranged GET.
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
    let leaseProbe = LeaseProbe()
    /// Whether a DELETE was refused (`AccessDenied`: the policy grants no
    /// `s3:DeleteObject`): a lease is then released by writing it run out.
    let deletesRefused = Mutex(false)
    /// Other machines' leases as this machine has seen them renewed.
    let leaseSightings = LeaseSightings()

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
        do {
            _ = try await send(request("DELETE", name))
        } catch let error as ImageCoreError where Self.isAccessDenied(error) {
            deletesRefused.withLock { $0 = true }
            throw error
        }
        return true
    }

    /// Whether S3 refused a request for the policy's sake (403 `AccessDenied`),
    /// not for the credentials' (`SignatureDoesNotMatch`, `ExpiredToken`…).
    static func isAccessDenied(_ error: ImageCoreError) -> Bool {
        error.httpStatus == 403 && error.serviceCode == "AccessDenied"
    }

    /// Whether S3's answer to `request` says only that its key cannot be
    /// read, so it is missing for imgcache: 404 `NoSuchKey` (or a 404
    /// without a document); and to a request that reads the key (a GET, or
    /// a PUT with `If-Match`, which AWS authorises as a read too), 403
    /// `AccessDenied`, AWS's answer for a missing key when the policy grants
    /// no `s3:ListBucket`, or 403 `InvalidObjectState` (an object a lifecycle
    /// rule archived: the next upload replaces it). A 403 that names the
    /// credentials, one without a document, or one to a request sent
    /// unsigned (no credentials found), is not.
    static func isMissingKey(_ error: ImageCoreError, in request: DownloadRequest) -> Bool {
        switch (error.httpStatus, error.serviceCode) {
        case (404, nil), (404, "NoSuchKey"): true
        case (403, "AccessDenied"), (403, "InvalidObjectState"):
            // Unsigned (no credentials found), it is a private bucket's
            // answer to anyone, whatever the key: a refusal of the store.
            request.credentials != nil
                && (request.method == "GET"
                    || (request.method == "PUT" && request.headers.contains { $0.name == "If-Match" }))
        default: false
        }
    }

    /// PUTs `body` as `name` with the given precondition headers; returns
    /// the status: 412 when a precondition failed (for `If-Match`, also when
    /// the object is gone), 409 when another conditional write raced this one.
    func write(
        _ name: String, _ body: [UInt8], conditions: [HTTPHeader] = [], patient: Bool = false
    ) async throws
        -> Int
    {
        var request = self.request("PUT", name)
        request.uploadBody = body
        request.headers += conditions
        if patient { request = request.withLeasePatience() }
        let replacing = conditions.contains { $0.name == "If-Match" }
        let status = try await send(request, absent: replacing, answers: [409, 412]).status
        return replacing && status == 404 ? 412 : status
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

    /// Sends one request. A missing key (`absent`: `isMissingKey`, returned
    /// as 404) and an error status listed in `answers` are returned (without
    /// a response) for the caller to act on; anything else is an error
    /// naming the store and the S3 error code: a 404 for a missing bucket, a
    /// 403 for a wrong secret, a timeout.
    func send(
        _ request: DownloadRequest, absent: Bool = false, answers: Set<Int> = []
    ) async throws -> (
        status: Int, response: DownloadResponse?
    ) {
        if let problem = settings.credentialProblem {
            // Why: unsigned, or signed by a profile the operator did not
            // name, every request would be refused as the policy's
            // `AccessDenied` (a miss), hiding what is wrong.
            throw ImageCoreError(.network, "\(configured.maskedURL): \(problem)")
        }
        do {
            let response = try await network.download(request)
            return (response.status, response)
        } catch let error as ImageCoreError {
            if let status = error.httpStatus, answers.contains(status) { return (status, nil) }
            if absent, Self.isMissingKey(error, in: request) { return (404, nil) }
            if error.kind == .interrupted { throw error }
            let unsigned = request.credentials == nil && error.httpStatus == 403 ? " (\(AWSSettings.unsignedNote))" : ""
            var failure = ImageCoreError(
                .network, "\(configured.maskedURL): \(error.message)\(unsigned)", httpStatus: error.httpStatus)
            failure.serviceCode = error.serviceCode
            failure.transportFault = error.transportFault
            throw failure
        }
    }
}
