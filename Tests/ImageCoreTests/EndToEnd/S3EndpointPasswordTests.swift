import Foundation
import TestSupport
import Testing

/// An S3 endpoint given with a user and password (`|endpoint=` or
/// `AWS_ENDPOINT_URL`) puts them into every request's URL, and `-v` printed
/// those URLs as they were: the password showed on each "request started"
/// and "response received" line, where the man page says credentials never
/// appear in output.
@Suite(.serialized, .enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
struct S3EndpointPasswordTests {
    let s3: SeaweedFSProcess

    init() throws {
        s3 = try SeaweedFSProcess.shared.get()
    }

    @Test func aPasswordInTheEndpointIsNeverShownByVerbose() throws {
        let bucket = try s3.makeBucket()
        let png = Fixtures.tinyPNG
        try s3.put(bucket, "a.png", png)
        let origin = try TestHTTPServer()
        origin.route("/b.png", .ok(png))
        let endpoint = s3.endpoint.replacingOccurrences(of: "http://", with: "http://bob:endpoint-pw@")
        let cache = try TemporaryDirectory()
        let store = "s3://\(bucket)/fleet|endpoint=\(endpoint)"
        let remote = try CLI.run(
            ["fetch", "-v", "--json", "--remote-storage", store, origin.url("/b.png")], cacheDir: cache.path,
            environment: s3.environment)
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stderr.contains("request started: GET http://bob:***@127.0.0.1:"), "\(remote.stderr)")
        let direct = try CLI.run(
            ["fetch", "-v", "--json", "s3://\(bucket)/a.png"], cacheDir: cache.path,
            environment: s3.environment.merging(["AWS_ENDPOINT_URL": endpoint]) { $1 })
        #expect(direct.status == 0, "\(direct.stderr)")
        for run in [remote, direct] {
            #expect(!(run.stderr + run.stdoutText).contains("endpoint-pw"), "\(run.stderr)")
        }
    }

    /// `AWS_ENDPOINT_URL=host:port` (no scheme) made every S3 request
    /// "only http, https and s3 URLs are supported", said of an s3:// URL.
    @Test func anEndpointWithoutASchemeIsNamed() throws {
        let bucket = try s3.makeBucket()
        let bare = s3.endpoint.replacingOccurrences(of: "http://", with: "")
        let cache = try TemporaryDirectory()
        let run = try CLI.run(
            ["fetch", "--retries", "0", "s3://\(bucket)/a.png"], cacheDir: cache.path,
            environment: s3.environment.merging(["AWS_ENDPOINT_URL": bare]) { $1 })
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr
                == "imgcache: s3://\(bucket)/a.png: the S3 endpoint '\(bare)' (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) "
                + "is not an http or https URL\n", "\(run.stderr)")
    }
}
