import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// What S3 needs besides a server: the `s3://` store syntax, endpoint,
/// region and credentials found as the AWS CLI finds them, object URLs,
/// S3 error codes, and the signed request's headers as sent.
struct S3SettingsTests {
    @Test func anS3StoreTakesEveryAttributeAndShowsNoSecret() throws {
        let store = try RemoteStorageURL(
            parsing: "s3://media-*/team/cache|endpoint=http://127.0.0.1:8333|region=eu-west-3|shards=a,b"
                + "|read-only|timeout=2000|connect-timeout=300|lease=9000")
        #expect(store.scheme == .s3 && store.readOnly && store.timeout == 2 && store.connectTimeout == 0.3)
        #expect(store.endpoint == "http://127.0.0.1:8333" && store.region == "eu-west-3")
        #expect(store.leaseDuration == 9 && store.shards.map(\.name) == ["a", "b"])
        #expect(store.shard(store.shards[1]).maskedURL == "s3://media-b/team/cache")
        #expect(RemoteStorageURL.defaultLeaseDuration * 1 <= 10 - RemoteCache.leaseMargin - RemoteCache.longestPoll)
        for spec in ["s3://", "s3:///x", "s3://b|endpoint=ftp://x", "s3://b|region=", "http://h|region=x"] {
            #expect(throws: ImageCoreError.self, "\(spec)") { try RemoteStorageURL(parsing: spec) }
        }
    }

    @Test func theEnvironmentComesFirstThenTheSharedFile() throws {
        let file = Array(
            """
            [default]
            aws_access_key_id = AKIDDEFAULT
            aws_secret_access_key = default-secret
            [ci]
            aws_access_key_id=AKIDCI
            aws_secret_access_key=ci/secret+1
            aws_session_token = tok
            """.utf8)
        var asked: [String] = []
        let read = { (path: String) -> [UInt8]? in
            asked.append(path)
            return file
        }
        let fromEnvironment = AWSSettings(
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret",
                "AWS_DEFAULT_REGION": "ap-south-1",
                "AWS_ENDPOINT_URL": "http://generic", "AWS_ENDPOINT_URL_S3": "http://s3-only",
            ], readFile: read)
        #expect(fromEnvironment.credentials == AWSCredentials(accessKeyID: "AKIDENV", secretAccessKey: "env-secret"))
        #expect(fromEnvironment.region == "ap-south-1" && fromEnvironment.endpoint == "http://s3-only")
        #expect(asked.isEmpty)
        let fromProfile = AWSSettings(
            environment: ["HOME": "/home/u", "AWS_PROFILE": "ci", "AWS_REGION": "eu-north-1"], readFile: read)
        #expect(asked == ["/home/u/.aws/config", "/home/u/.aws/credentials"])
        #expect(
            fromProfile.credentials
                == AWSCredentials(accessKeyID: "AKIDCI", secretAccessKey: "ci/secret+1", sessionToken: "tok"))
        #expect(fromProfile.region == "eu-north-1" && fromProfile.endpoint == nil)
        let fallback = AWSSettings(environment: ["AWS_SHARED_CREDENTIALS_FILE": "/etc/creds"], readFile: read)
        #expect(asked.last == "/etc/creds" && fallback.credentials?.accessKeyID == "AKIDDEFAULT")
        #expect(fallback.region == "us-east-1")
        #expect(!"\(fallback.credentials!)".contains("default-secret"))
        #expect(AWSSettings(environment: ["AWS_PROFILE": "none"], readFile: read).credentials == nil)
    }

    /// `aws configure` writes the region (and may write keys) into
    /// `~/.aws/config`, whose sections are `[default]` and `[profile NAME]`:
    /// the AWS CLI's region when no variable names one, its credentials when
    /// the credentials file has none for the profile.
    @Test func theConfigFileGivesTheRegionAndAProfilesKeys() throws {
        let files: [String: String] = [
            "/h/.aws/config": """
            [default]
            region = ap-south-1
            [profile ci]
            region=eu-west-3
            endpoint_url = http://minio.internal:9000
            aws_access_key_id = AKIDCONFIG
            aws_secret_access_key = config-secret
            [build]
            region = sa-east-1
            """,
            "/h/.aws/credentials": "[ci]\naws_access_key_id = AKIDCI\naws_secret_access_key = ci-secret\n",
        ]
        let read = { (path: String) in files[path].map { Array($0.utf8) } }
        let ci = AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "ci"], readFile: read)
        #expect(ci.region == "eu-west-3" && ci.credentials?.accessKeyID == "AKIDCI" && ci.credentialProblem == nil)
        // The profile's endpoint_url, as the AWS CLI's, unless a variable names one.
        #expect(ci.endpoint == "http://minio.internal:9000")
        let keys = ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S", "AWS_REGION": "r", "AWS_PROFILE": "ci"]
        #expect(
            AWSSettings(environment: keys.merging(["HOME": "/h"]) { $1 }, readFile: read).endpoint
                == "http://minio.internal:9000")
        #expect(
            AWSSettings(
                environment: keys.merging(["HOME": "/h", "AWS_ENDPOINT_URL": "http://e"]) { $1 }, readFile: read
            )
            .endpoint == "http://e")
        let configOnly = AWSSettings(
            environment: ["HOME": "/h", "AWS_PROFILE": "ci", "AWS_SHARED_CREDENTIALS_FILE": "/none"], readFile: read)
        #expect(configOnly.credentials == AWSCredentials(accessKeyID: "AKIDCONFIG", secretAccessKey: "config-secret"))
        let variables = AWSSettings(
            environment: ["HOME": "/h", "AWS_PROFILE": "ci", "AWS_DEFAULT_REGION": "us-west-2"], readFile: read)
        #expect(variables.region == "us-west-2")
        #expect(AWSSettings(environment: ["HOME": "/h"], readFile: read).region == "ap-south-1")
        // A config section without "profile " is no profile but the default.
        let build = AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "build"], readFile: read)
        #expect(build.region == AWSSettings.defaultRegion && build.credentials == nil)
        #expect(
            build.credentialProblem
                == "AWS_PROFILE names profile 'build', which neither /h/.aws/credentials nor /h/.aws/config has")
        let moved = AWSSettings(
            environment: ["HOME": "/h", "AWS_CONFIG_FILE": "~/.aws/config", "AWS_PROFILE": "ci"], readFile: read)
        #expect(moved.region == "eu-west-3")
    }

    /// A section header followed by a comment is still that section's
    /// header, as the AWS CLI's INI parser reads it (`[name]`, then anything):
    /// taken for a line of the section above, it began no section, so the
    /// keys under it replaced that section's own, and the default profile
    /// signed with the production keys.
    @Test func aCommentAfterASectionHeaderStartsThatSection() throws {
        let files: [String: String] = [
            "/h/.aws/credentials": """
            [default]
            aws_access_key_id = AKIDDEFAULT
            aws_secret_access_key = default-secret
            [production]   # the live account
            aws_access_key_id = AKIDPROD
            aws_secret_access_key = prod-secret
            """,
            "/h/.aws/config": "[default]\nregion = ap-south-1\n[profile production] ; eu\nregion = eu-west-3\n",
        ]
        let read = { (path: String) in files[path].map { Array($0.utf8) } }
        let fallback = AWSSettings(environment: ["HOME": "/h"], readFile: read)
        #expect(fallback.credentials?.accessKeyID == "AKIDDEFAULT" && fallback.region == "ap-south-1")
        let production = AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "production"], readFile: read)
        #expect(production.credentialProblem == nil)
        #expect(production.credentials?.accessKeyID == "AKIDPROD" && production.region == "eu-west-3")
    }

    /// Half a credential pair stops the AWS CLI ("Partial credentials found
    /// in env"); it fell through to the credentials file's default profile.
    /// Now it signs nothing: a request that needs credentials is refused
    /// (`usage`) before it is sent, and one that needs none goes as before.
    /// A profile that names a command, a role, SSO or a web identity for
    /// its credentials (none of which imgcache runs) sent requests unsigned,
    /// refused as `AccessDenied`; it is a problem that says how to give keys.
    @Test func aProfileWhoseCredentialsComeFromElsewhereSaysHowToGiveThem() {
        let files: [String: String] = [
            "/h/.aws/config": "[profile ops]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = base\n",
            "/h/.aws/credentials":
                "[sso]\nsso_session = corp\n[keys]\naws_access_key_id = A\naws_secret_access_key = S\n",
        ]
        let read = { (path: String) in files[path].map { Array($0.utf8) } }
        let ops = AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "ops"], readFile: read)
        #expect(ops.credentials == nil)
        #expect(
            ops.credentialProblem
                == "profile ops in /h/.aws/config gets its credentials by role_arn, which imgcache does not run: give "
                + "them in the environment (eval \"$(aws configure export-credentials --profile ops --format env)\")")
        let sso = AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "sso"], readFile: read)
        #expect(
            sso.credentialProblem?.hasPrefix("profile sso in /h/.aws/credentials gets its credentials by sso_session")
                == true)
        #expect(
            AWSSettings(environment: ["HOME": "/h", "AWS_PROFILE": "keys"], readFile: read).credentialProblem == nil)
        #expect(AWSSettings(environment: ["HOME": "/h"], readFile: read).credentialProblem == nil)
        #expect(
            ops.sendsUnsigned(DownloadRequest(url: "s3://b/k"))
                && !ops.sendsUnsigned(DownloadRequest(url: "https://h/k")))
    }

    @Test func halfACredentialPairIsAProblemNotAFallback() throws {
        let file = Array("[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n".utf8)
        let read = { (_: String) -> [UInt8]? in file }
        let keyOnly = AWSSettings(environment: ["AWS_ACCESS_KEY_ID": "AKIDENV"], readFile: read)
        #expect(keyOnly.credentials == nil)
        #expect(
            keyOnly.credentialProblem
                == "partial AWS credentials in the environment: AWS_ACCESS_KEY_ID is set, AWS_SECRET_ACCESS_KEY is not")
        let secretOnly = AWSSettings(
            environment: ["AWS_SECRET_ACCESS_KEY": "s", "AWS_ACCESS_KEY_ID": ""], readFile: read)
        #expect(
            secretOnly.credentials == nil && secretOnly.credentialProblem?.contains("AWS_ACCESS_KEY_ID is not") == true)
        let halfFile = AWSSettings(
            environment: ["AWS_SHARED_CREDENTIALS_FILE": "/c"],
            readFile: { $0 == "/c" ? Array("[default]\naws_secret_access_key = s\n".utf8) : nil })
        #expect(
            halfFile.credentialProblem
                == "partial AWS credentials in /c, profile default: aws_secret_access_key is set, aws_access_key_id is not"
        )
        #expect(AWSSettings(environment: [:], readFile: read).credentialProblem == nil)

        #expect(keyOnly.credentialRefusal(DownloadRequest(url: "s3://b/k"))?.kind == .usage)
        #expect(keyOnly.credentialRefusal(DownloadRequest(url: "https://example.com/a.png")) == nil)
        var sigv4 = DownloadRequest(url: "https://example.com/a.png")
        sigv4.awsSigV4 = "aws:amz:us-east-1:s3"
        #expect(keyOnly.credentialRefusal(sigv4)?.message == keyOnly.credentialProblem)
        sigv4.credentials = "AKID:secret"  // -u: the environment's keys are not asked
        #expect(keyOnly.credentialRefusal(sigv4) == nil)
    }

    @Test func objectURLsArePathStyleOnACustomEndpoint() {
        let object = S3ObjectURL("s3://photos/2024/cat%201.jpg")
        #expect(object == S3ObjectURL(bucket: "photos", key: "2024/cat%201.jpg"))
        #expect(
            object?.httpURL(endpoint: "http://127.0.0.1:8333/", region: "x")
                == "http://127.0.0.1:8333/photos/2024/cat%201.jpg")
        #expect(
            object?.httpURL(endpoint: nil, region: "eu-west-1")
                == "https://photos.s3.eu-west-1.amazonaws.com/2024/cat%201.jpg")
        #expect(
            S3ObjectURL("s3://a.b/k")?.httpURL(endpoint: nil, region: "us-east-1")
                == "https://s3.us-east-1.amazonaws.com/a.b/k")
        #expect(S3ObjectURL("s3://u:p@b/k") == nil && S3ObjectURL("https://b/k") == nil)
    }

    @Test func anErrorDocumentNamesItsCode() {
        let document = Array(
            "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>gone</Message></Error>".utf8)
        #expect(ResponseHead.serviceCode(in: document) == "NoSuchBucket")
        #expect(ResponseHead.serviceCode(in: Array("<Code>a b</Code>".utf8)) == nil)
        #expect(ResponseHead.serviceCode(in: Array("<Code>Unclosed".utf8)) == nil)
        #expect(ImageCoreError.httpStatus(403, serviceCode: "AccessDenied").message == "HTTP 403 AccessDenied")
    }

    /// SeaweedFS does not require `x-amz-content-sha256`; AWS does. It is
    /// sent with the body's SHA-256, and signed; no empty `Expect:` is
    /// (curl 7.88 would sign it without sending it).
    @Test func aSignedRequestSendsAndSignsTheContentHash() async throws {
        let server = try TestHTTPServer()
        server.route("/bucket/key", .ok(Fixtures.tinyPNG))
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        var request = DownloadRequest(url: server.url("/bucket/key"))
        request.method = "PUT"
        request.expectsImage = false
        request.uploadBody = Array("body".utf8)
        request.sign(
            with: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: "TOKEN"),
            region: "eu-west-3")
        _ = try await loader.download(request)
        let sent = try #require(server.requests.last)
        #expect(sent.header("x-amz-content-sha256") == Digest.sha256Hex(Array("body".utf8)))
        #expect(sent.header("x-amz-security-token") == "TOKEN")
        #expect(sent.header("Expect") == nil)
        let authorization = try #require(sent.header("Authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/"))
        #expect(authorization.contains("/eu-west-3/s3/aws4_request"))
        let signed = authorization.split(separator: " ").first { $0.hasPrefix("SignedHeaders=") }
        #expect(signed?.contains("x-amz-content-sha256") == true, "\(authorization)")
        #expect(signed?.contains("x-amz-security-token") == true, "\(authorization)")
        #expect(signed?.contains("expect") == false, "\(authorization)")
        #expect(!authorization.contains("SECRET"))
    }
}
