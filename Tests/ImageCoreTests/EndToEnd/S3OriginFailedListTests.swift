import Foundation
import TestSupport
import Testing

/// A private bucket's object refused for its credentials is remembered for
/// those credentials only, as a URL refused to one `-u` is: the AWS
/// credentials an `s3://` URL is signed with are part of the request. They
/// were added by the downloader after the failed list had been asked, so a
/// 403 from a wrong secret kept the URL refused (exit 6) for a day after the
/// secret was put right.
@Suite(.serialized, .enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
struct S3OriginFailedListTests {
    let s3: SeaweedFSProcess

    init() throws {
        s3 = try SeaweedFSProcess.shared.get()
    }

    @Test func aURLRefusedForAWrongSecretIsFetchedOnceTheSecretIsRight() throws {
        let bucket = try s3.makeBucket()
        let png = Fixtures.tinyPNG
        try s3.put(bucket, "private.png", png)
        let url = "s3://\(bucket)/private.png"
        let cache = try TemporaryDirectory()
        let wrong = try CLI.run(
            ["fetch", url], cacheDir: cache.path,
            environment: s3.environment.merging(["AWS_SECRET_ACCESS_KEY": "wrong-secret"]) { $1 })
        #expect(wrong.status == 4, "\(wrong.stderr)")
        let again = try CLI.run(
            ["fetch", url], cacheDir: cache.path,
            environment: s3.environment.merging(["AWS_SECRET_ACCESS_KEY": "wrong-secret"]) { $1 })
        #expect(again.status == 6, "the same credentials are refused from the list: \(again.stderr)")

        let right = try CLI.run(["fetch", url], cacheDir: cache.path, environment: s3.environment)
        #expect(right.status == 0 && right.stdout == png, "\(right.stderr)")
        // The record is keyed on a digest: neither secret is written into the cache.
        let files = try Shell.output(
            "grep -rl -e wrong-secret -e '\(SeaweedFSProcess.secretKey)' '\(cache.path)' || true")
        #expect(files.isEmpty, "\(String(decoding: files, as: UTF8.self))")
    }

    /// The endpoint and region an `s3://` URL is sent to are part of the
    /// request too: a 404 from a wrong `AWS_ENDPOINT_URL` (another server,
    /// which has no such bucket) is not the object's answer, and kept the URL
    /// refused (exit 6) for a day after the endpoint was put right.
    @Test func aURLRefusedByAWrongEndpointIsFetchedOnceTheEndpointIsRight() throws {
        let bucket = try s3.makeBucket()
        let png = Fixtures.tinyPNG
        try s3.put(bucket, "elsewhere.png", png)
        let url = "s3://\(bucket)/elsewhere.png"
        let cache = try TemporaryDirectory()
        let otherServer = try TestHTTPServer()  // 404 for every path
        let wrong = try withExtendedLifetime(otherServer) {
            try CLI.run(
                ["fetch", url], cacheDir: cache.path,
                environment: s3.environment.merging(["AWS_ENDPOINT_URL": otherServer.url("")]) { $1 })
        }
        #expect(wrong.status == 4, "\(wrong.stderr)")
        #expect(otherServer.requestCount(for: "/\(bucket)/elsewhere.png") == 1)

        let right = try CLI.run(["fetch", url], cacheDir: cache.path, environment: s3.environment)
        #expect(right.status == 0 && right.stdout == png, "\(right.stderr)")
    }
}
