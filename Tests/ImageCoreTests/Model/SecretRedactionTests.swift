import Testing

@testable import ImageCore

/// `dump()`, `Mirror` and interpolation of the types that hold a secret show
/// everything but the secret.
struct SecretRedactionTests {
    let secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCY"
    let token = "FwoGZXIvYXdzEBY-session-token"
    let password = "hunter2-redis"

    /// What `dump()` and `"\(value)"` show of `value`, together.
    func shown(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text + "\n\(value)"
    }

    func assertHidden(_ text: String, _ secrets: [String], showing visible: [String]) {
        for secret in secrets { #expect(!text.contains(secret), "\(secret) shown in:\n\(text)") }
        for part in visible { #expect(text.contains(part), "\(part) missing from:\n\(text)") }
    }

    @Test func awsSettingsShowTheKeyIDOnly() {
        var settings = AWSSettings()
        settings.endpoint = "http://user:\(password)@127.0.0.1:8333"
        settings.credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: token)
        assertHidden(shown(settings), [secret, token, password], showing: ["AKIDEXAMPLE", "us-east-1", "127.0.0.1"])
        assertHidden(shown(settings.credentials!), [secret, token], showing: ["AKIDEXAMPLE"])
        assertHidden(
            String(describing: Mirror(reflecting: settings).children.map { "\($0.label ?? ""): \($0.value)" }),
            [secret, token], showing: ["AKIDEXAMPLE"])
    }

    @Test func downloadRequestsMaskCredentialsHeadersAndProxy() {
        var request = DownloadRequest(url: "http://alice:\(password)@example.com/a.png")
        request.credentials = "bob:\(secret)"
        request.proxy = "http://carol:\(token)@proxy.example:3128"
        request.headers = [
            HTTPHeader(name: "Authorization", value: "Bearer \(secret)"),
            HTTPHeader(name: "cookie", value: "session=\(token)"),
            HTTPHeader(name: "X-Amz-Security-Token", value: token),
            HTTPHeader(name: "X-Shown", value: "visible-value"),
        ]
        assertHidden(
            shown(request), [secret, token, password],
            showing: ["example.com/a.png", "alice", "proxy.example", "Authorization", "visible-value"])
        assertHidden(shown(request.headers[0]), [secret], showing: ["Authorization"])
    }

    @Test func remoteStoresShowTheirStoreNotItsPassword() throws {
        let redis = try RemoteStorageURL(parsing: "redis://user:\(password)@127.0.0.1:6379/2|read-only")
        assertHidden(shown(redis), [password], showing: ["127.0.0.1:6379/2", "readOnly"])
        assertHidden(shown(RedisRemoteStorage(redis)), [password], showing: ["127.0.0.1"])
        let http = try RemoteStorageURL(parsing: "http://user:\(password)@127.0.0.1:1/cache")
        let loader = ScriptedLoader { _ in throw ImageCoreError(.network, "refused") }
        assertHidden(shown(HTTPRemoteStorage(http, network: loader)), [password], showing: ["127.0.0.1:1/cache"])
    }

    /// The requests an S3 store signs carry the secret and the token
    /// (for curl); dumping one shows neither.
    @Test func signedS3RequestsDumpWithoutTheSecret() async throws {
        var aws = AWSSettings()
        aws.endpoint = "http://127.0.0.1:1"
        aws.credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: token)
        let loader = ScriptedLoader { _ in throw ImageCoreError(.network, "refused") }
        let store = S3RemoteStorage(try RemoteStorageURL(parsing: "s3://bucket/prefix"), network: loader, aws: aws)
        _ = try? await store.get("name", maxBytes: 100)
        let request = try #require(loader.downloads.first)
        #expect(request.credentials?.contains(secret) == true)
        assertHidden(shown(request), [secret, token], showing: ["x-amz-security-token", "bucket"])
        assertHidden(shown(store), [secret, token], showing: ["s3://bucket/prefix"])
    }
}
