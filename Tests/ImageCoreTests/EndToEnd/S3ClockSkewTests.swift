import Foundation
import TestSupport
import Testing

/// A machine whose clock is far off (more than 15 minutes on AWS) has every
/// signed request refused with 403 `RequestTimeTooSkewed`. That is neither
/// the URL's answer nor the credentials': an `s3://` URL so refused was put
/// on the failed list, and stayed refused (exit 6, `failed before (HTTP 403
/// RequestTimeTooSkewed …)`) for a day after the clock was put right, since
/// the same credentials make the same request. And the code's name alone
/// did not tell the operator what to put right.
@Suite(.serialized) struct S3ClockSkewTests {
    let s3: S3PolicyServer
    let cache: TemporaryDirectory

    init() throws {
        s3 = try S3PolicyServer(policy: .getAndPut)
        s3.put("photos/a.png", Fixtures.tinyPNG)
        cache = try TemporaryDirectory()
    }

    var environment: [String: String] { s3.environment.merging(["AWS_ENDPOINT_URL": s3.endpoint]) { $1 } }

    @Test func anS3URLRefusedForTheClockIsFetchedOnceTheClockIsRight() throws {
        let url = "s3://\(s3.bucket)/photos/a.png"
        s3.refuseCredentials("RequestTimeTooSkewed", fromRequest: 1)
        let skewed = try CLI.run(["fetch", url], cacheDir: cache.path, environment: environment)
        #expect(skewed.status == 4, "\(skewed.stderr)")
        #expect(
            skewed.stderr
                == "imgcache: \(url): HTTP 403 RequestTimeTooSkewed (this machine's clock is further from the "
                + "server's than it allows: 15 minutes on AWS)\n")
        s3.acceptCredentials()
        let right = try CLI.run(["fetch", url], cacheDir: cache.path, environment: environment)
        #expect(right.status == 0 && right.stdout == Fixtures.tinyPNG, "\(right.stderr)")
    }

    @Test func aStoreRefusedForTheClockSaysSoOnce() throws {
        let origin = try TestHTTPServer()
        origin.route("/b.png", .ok(Fixtures.tinyPNG))
        s3.refuseCredentials("RequestTimeTooSkewed", fromRequest: 1)
        let fetch = try CLI.run(
            ["fetch", "--remote-storage", "s3://\(s3.bucket)", "-o", "/dev/null", origin.url("/b.png")],
            cacheDir: cache.path, environment: environment)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(
            fetch.stderr
                == "imgcache: remote storage s3://\(s3.bucket): HTTP 403 RequestTimeTooSkewed (this machine's clock "
                + "is further from the server's than it allows: 15 minutes on AWS), skipped\n")
    }
}
