import Foundation
import TestSupport
import Testing

/// Half of a credential pair (`AWS_ACCESS_KEY_ID` without
/// `AWS_SECRET_ACCESS_KEY`, or a profile with only one of its two keys) is
/// an operator's mistake the AWS CLI stops for ("Partial credentials found
/// in env"). imgcache went on silently with the shared credentials file's
/// default profile, another identity than the one the operator meant; and
/// with no file, unsigned, which a private bucket refuses as the policy's
/// `AccessDenied`. Now nothing is sent: an S3 store is skipped with one line
/// naming what is missing, and an `s3://` URL fails with it, exit 64.
@Suite(.serialized) struct S3PartialCredentialsTests {
    let s3: S3PolicyServer
    let origin: TestHTTPServer
    let work: TemporaryDirectory

    init() throws {
        s3 = try S3PolicyServer(policy: .getAndPut)
        origin = try TestHTTPServer()
        origin.route("/a.png", .ok(Fixtures.tinyPNG))
        work = try TemporaryDirectory()
        // A default profile with the right keys: what the old code fell back to.
        try """
        [default]
        aws_access_key_id = \(S3PolicyServer.accessKey)
        aws_secret_access_key = \(S3PolicyServer.secretKey)
        """.write(toFile: "\(work.path)/credentials", atomically: true, encoding: .utf8)
    }

    /// The key id alone, with a credentials file that would work.
    var keyOnly: [String: String] {
        s3.environment.merging([
            "AWS_SECRET_ACCESS_KEY": "", "AWS_SHARED_CREDENTIALS_FILE": "\(work.path)/credentials",
            "AWS_ENDPOINT_URL": s3.endpoint,
        ]) { $1 }
    }

    @Test func aStoreIsSkippedWithOneLineNamingWhatIsMissing() throws {
        let cache = try TemporaryDirectory()
        let fetch = try CLI.run(
            ["fetch", "--remote-storage", "s3://\(s3.bucket)/team", "-o", "/dev/null", origin.url("/a.png")],
            cacheDir: cache.path, environment: keyOnly)
        #expect(fetch.status == 0, "the origin serves: \(fetch.stderr)")
        #expect(
            fetch.stderr
                == "imgcache: remote storage s3://\(s3.bucket)/team: partial AWS credentials in the environment: "
                + "AWS_ACCESS_KEY_ID is set, AWS_SECRET_ACCESS_KEY is not, skipped\n")
        #expect(s3.log.isEmpty, "requests were sent: \(s3.log)")
    }

    @Test func anS3URLFailsWithUsageAndSendsNothing() throws {
        let cache = try TemporaryDirectory()
        let url = "s3://\(s3.bucket)/a.png"
        let fetch = try CLI.run(["fetch", "-o", "/dev/null", url], cacheDir: cache.path, environment: keyOnly)
        #expect(fetch.status == 64, "\(fetch.stderr)")
        #expect(
            fetch.stderr
                == "imgcache: \(url): partial AWS credentials in the environment: "
                + "AWS_ACCESS_KEY_ID is set, AWS_SECRET_ACCESS_KEY is not\n")
        // The secret alone is as partial; and a profile with half its keys names its file and profile.
        let secretOnly = try CLI.run(
            ["fetch", "-o", "/dev/null", url], cacheDir: cache.path,
            environment: keyOnly.merging(["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "s"]) { $1 })
        #expect(secretOnly.status == 64 && secretOnly.stderr.contains("AWS_ACCESS_KEY_ID is not"))
        try "[half]\naws_access_key_id = AKIDHALF\n".write(
            toFile: "\(work.path)/half", atomically: true, encoding: .utf8)
        try "[profile half]\nregion = eu-west-3\n".write(
            toFile: "\(work.path)/config", atomically: true, encoding: .utf8)
        let halfProfile = try CLI.run(
            ["fetch", "-o", "/dev/null", url], cacheDir: cache.path,
            environment: keyOnly.merging([
                "AWS_ACCESS_KEY_ID": "", "AWS_PROFILE": "half", "AWS_CONFIG_FILE": "\(work.path)/config",
                "AWS_SHARED_CREDENTIALS_FILE": "\(work.path)/half",
            ]) { $1 })
        #expect(halfProfile.status == 64, "\(halfProfile.stderr)")
        #expect(
            halfProfile.stderr.hasSuffix(
                ": partial AWS credentials in \(work.path)/half, profile half: "
                    + "aws_access_key_id is set, aws_secret_access_key is not\n"), "\(halfProfile.stderr)")
        #expect(s3.log.isEmpty, "requests were sent: \(s3.log)")
        // Whole credentials again: the object is fetched.
        let whole = try CLI.run(
            ["fetch", "-o", "/dev/null", url], cacheDir: cache.path,
            environment: keyOnly.merging(["AWS_SECRET_ACCESS_KEY": S3PolicyServer.secretKey]) { $1 })
        #expect(whole.status == 4, "no such object, asked: \(whole.stderr)")
        #expect(!s3.log.isEmpty)
    }

    /// No credentials at all: the request goes unsigned (a public bucket's
    /// way), and a private bucket's 403 says that is why.
    @Test func anUnsignedRefusalSaysNoCredentialsWereFound() throws {
        let cache = try TemporaryDirectory()
        let url = "s3://\(s3.bucket)/a.png"
        let none = keyOnly.merging(["AWS_ACCESS_KEY_ID": "", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]) { $1 }
        let fetch = try CLI.run(["fetch", "-o", "/dev/null", url], cacheDir: cache.path, environment: none)
        #expect(fetch.status == 4, "\(fetch.stderr)")
        #expect(
            fetch.stderr
                == "imgcache: \(url): HTTP 403 AccessDenied (sent unsigned: no AWS credentials in the environment, "
                + "the credentials file or the config file)\n")
        #expect(s3.log.count == 1)
    }
}
