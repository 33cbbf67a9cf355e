import Foundation
import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

/// An S3 bucket in memory, on a `TestHTTPServer`, that answers as AWS does
/// under a chosen IAM policy, with S3's error documents: the answers a real
/// S3-compatible server on loopback (SeaweedFS) cannot give. Without
/// `s3:ListBucket` a GET of a missing key is 403 `AccessDenied`, not 404
/// `NoSuchKey`; a PUT or DELETE the policy lacks is 403 `AccessDenied`.
/// Conditional writes behave as in S3 (`If-None-Match: *`, `If-Match`:
/// 412). Signatures are not checked, but the access key is: any other is 403
/// `InvalidAccessKeyId`, an unsigned request 403 `AccessDenied` (a private
/// bucket's answer to anyone), and `refuseCredentials` makes later requests fail
/// with a credentials code (a session token that runs out mid-run).
///
/// Thread safety: every method may be called from any thread.
package final class S3PolicyServer: Sendable {
    /// What the caller's policy grants.
    package struct Policy: Sendable {
        package var listBucket: Bool
        package var getObject: Bool
        package var putObject: Bool
        package var deleteObject: Bool

        /// The least-privilege fleet policy: `s3:GetObject` and `s3:PutObject` only.
        package static let getAndPut = Policy(listBucket: false, putObject: true, deleteObject: false)

        package init(listBucket: Bool, getObject: Bool = true, putObject: Bool, deleteObject: Bool) {
            self.listBucket = listBucket
            self.getObject = getObject
            self.putObject = putObject
            self.deleteObject = deleteObject
        }
    }

    package static let accessKey = "AKIDPOLICYTEST"
    package static let secretKey = "policy-test-secret-never-shown"
    package let bucket = "fleet"
    package let server: TestHTTPServer

    private struct State {
        var policy = Policy.getAndPut
        var objects: [String: (body: [UInt8], etag: String)] = [:]
        var writes = 0
        var requests = 0
        /// From which request on (counting from 1) the credentials are refused, and with which code.
        var credentialFault: (from: Int, code: String)?
    }

    /// The bucket, in a box the server's route holds too.
    private final class Shared: Sendable {
        // Inferred, not named: under TSan, ImageCore's `Mutex` alias and Synchronization's are both in scope.
        let state = Mutex(State())
    }

    private let shared: Shared

    package init(policy: Policy) throws {
        server = try TestHTTPServer()
        let shared = Shared()
        shared.state.withLock { $0.policy = policy }
        self.shared = shared
        let prefix = "/\(bucket)/"
        server.routeOthers { request in
            let path = TestHTTPServer.stripQuery(request.path)
            guard path.hasPrefix(prefix) else { return Self.error(404, "NoSuchBucket") }
            return shared.state.withLock { Self.answer(request, key: String(path.dropFirst(prefix.count)), &$0) }
        }
    }

    /// The endpoint, for `|endpoint=`.
    package var endpoint: String { server.url("") }

    /// The environment that gives imgcache this server's credentials (and no others).
    package var environment: [String: String] { Self.environmentFor(endpoint: "") }

    /// The environment that gives imgcache these credentials (and no
    /// others), with `endpoint` as `AWS_ENDPOINT_URL` (empty: none).
    package static func environmentFor(endpoint: String) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey, "AWS_SESSION_TOKEN": "",
            "AWS_REGION": "us-east-1", "AWS_PROFILE": "", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_ENDPOINT_URL": endpoint, "AWS_ENDPOINT_URL_S3": "",
        ]
    }

    /// From request number `request` on (counting from 1), every request is refused with 403 `code`.
    package func refuseCredentials(_ code: String, fromRequest request: Int) {
        shared.state.withLock { $0.credentialFault = (request, code) }
    }

    /// Credentials are accepted again (the clock put right, a new token).
    package func acceptCredentials() {
        shared.state.withLock { $0.credentialFault = nil }
    }

    /// Puts `body` as object `key`, as an owner's upload would.
    package func put(_ key: String, _ body: [UInt8]) {
        shared.state.withLock { state in
            state.writes += 1
            state.objects[key] = (body, "\"\(state.writes)\"")
        }
    }

    /// The keys of the objects held.
    package var keys: [String] { shared.state.withLock { $0.objects.keys.sorted() } }

    /// The object under `key`.
    package func object(_ key: String) -> [UInt8]? { shared.state.withLock { $0.objects[key]?.body } }

    /// Requests received, as "METHOD key" (query dropped).
    package var log: [String] {
        server.requests.map { "\($0.method) \(TestHTTPServer.stripQuery($0.path).dropFirst(bucket.count + 2))" }
    }

    private static func answer(
        _ request: TestHTTPServer.Request, key: String, _ state: inout State
    )
        -> TestHTTPServer
        .Response
    {
        state.requests += 1
        if let fault = state.credentialFault, state.requests >= fault.from { return error(403, fault.code) }
        // AWS's answer to an unsigned request for a private bucket, whatever the key.
        guard let authorization = request.header("Authorization") else { return error(403, "AccessDenied") }
        guard authorization.contains("Credential=\(accessKey)/") else { return error(403, "InvalidAccessKeyId") }
        // What AWS answers for a key the caller may not learn exists.
        let missing = state.policy.listBucket ? error(404, "NoSuchKey") : error(403, "AccessDenied")
        let held = state.objects[key]
        switch request.method {
        case "GET":
            guard state.policy.getObject else { return error(403, "AccessDenied") }
            guard let held else { return missing }
            var body = held.body
            var status = 200
            if request.header("Range") == "bytes=0-0" {
                body = Array(body.prefix(1))
                status = 206
            }
            return .status(status, body: body, headers: ["ETag": held.etag, "Content-Type": "binary/octet-stream"])
        case "PUT":
            guard state.policy.putObject else { return error(403, "AccessDenied") }
            if request.header("If-None-Match") == "*", held != nil { return error(412, "PreconditionFailed") }
            if let match = request.header("If-Match") {
                // AWS authorises a PUT with If-Match as a read too.
                guard state.policy.getObject, let held else { return missing }
                if held.etag != match { return error(412, "PreconditionFailed") }
            }
            state.writes += 1
            let etag = "\"\(state.writes)\""
            state.objects[key] = (request.body, etag)
            return .status(200, headers: ["ETag": etag])
        case "DELETE":
            guard state.policy.deleteObject else { return error(403, "AccessDenied") }
            if let match = request.header("If-Match") {
                guard let held else { return missing }
                if held.etag != match { return error(412, "PreconditionFailed") }
            }
            state.objects[key] = nil
            return .status(204)
        default:
            return error(405, "MethodNotAllowed")
        }
    }

    /// An S3 error document.
    private static func error(_ status: Int, _ code: String) -> TestHTTPServer.Response {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>\(code)</Message><RequestId>0</RequestId></Error>
            """
        return .status(status, body: Array(document.utf8), headers: ["Content-Type": "application/xml"])
    }
}
