import Foundation
import TestSupport
import Testing

/// A bucket addressed in another region than its own: AWS answers 301
/// `PermanentRedirect` with the bucket's region in `x-amz-bucket-region`
/// and no `Location`, so libcurl does not follow it. The 301 was taken for
/// an answer: an `s3://` URL's error document went to the image sniffer
/// (exit 5, "not a supported image (XML/SVG)", remembered for a day), and a
/// store's every PUT counted as an upload while nothing was stored, with
/// nothing said without `-v`. It is an HTTP error naming the region to use.
@Suite(.serialized) struct S3WrongRegionTests {
    let endpoint: TestHTTPServer
    let cache: TemporaryDirectory

    init() throws {
        endpoint = try TestHTTPServer()
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed \
            using the specified endpoint.</Message><Endpoint>fleet.s3.eu-west-1.amazonaws.com</Endpoint>\
            <Bucket>fleet</Bucket><RequestId>0</RequestId></Error>
            """
        endpoint.routeOthers { _ in
            .status(
                301, body: Array(document.utf8),
                headers: ["Content-Type": "application/xml", "x-amz-bucket-region": "eu-west-1"])
        }
        cache = try TemporaryDirectory()
    }

    var environment: [String: String] {
        S3PolicyServer.environmentFor(endpoint: endpoint.url(""))
    }

    static let hint =
        "HTTP 301 PermanentRedirect (the bucket is in eu-west-1: name that region with |region= or AWS_REGION)"

    @Test func anS3URLInAnotherRegionIsExit4NamingTheRegion() throws {
        let url = "s3://fleet/a.png"
        let fetch = try CLI.run(["fetch", url], cacheDir: cache.path, environment: environment)
        #expect(fetch.status == 4 && fetch.stderr == "imgcache: \(url): \(Self.hint)\n", "\(fetch.stderr)")
        let named = try CLI.run(
            ["fetch", url], cacheDir: cache.path, environment: environment.merging(["AWS_REGION": "eu-west-1"]) { $1 })
        #expect(named.status == 4, "another region is another request, not one failed before: \(named.stderr)")
    }

    @Test func aStoreInAnotherRegionIsSkippedNamingTheRegion() throws {
        let origin = try TestHTTPServer()
        origin.route("/b.png", .ok(Fixtures.tinyPNG))
        let fetch = try CLI.run(
            ["fetch", "--remote-storage", "s3://fleet/team", "-o", "/dev/null", origin.url("/b.png")],
            cacheDir: cache.path, environment: environment)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stderr == "imgcache: remote storage s3://fleet/team: \(Self.hint), skipped\n", "\(fetch.stderr)")
        let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path, environment: environment)
        #expect(stat.stdoutText.contains("\"remote_uploads\":0"), "\(stat.stdoutText)")
    }
}
