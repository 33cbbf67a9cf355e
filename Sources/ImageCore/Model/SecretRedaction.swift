/// How values that hold a secret show when reflected (`dump()`, `Mirror`,
/// `"\(value)"` of a type without a description): the secret replaced by
/// `mask`, as `RemoteStorageURL.description` masks a password. The types
/// that hold one (`AWSCredentials`, `AWSSettings`, `HTTPHeader`,
/// `DownloadRequest`, `RemoteStorageURL` and the remote stores) build their
/// own mirrors from these, so a debugging print or a crash report never
/// shows a secret (the man page: "Passwords and secrets are never shown").
enum SecretRedaction {
    /// What a secret is replaced by.
    static let mask = "***"

    /// Request headers whose value is a credential: HTTP and proxy
    /// authentication, cookies, and S3's session token.
    static let secretHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "x-amz-security-token",
    ]

    /// Whether the header `name` (any case) carries a credential.
    static func isSecretHeader(_ name: String) -> Bool {
        secretHeaderNames.contains(name.lowercased())
    }

    /// `value` masked, keeping whether there was one.
    static func masked(_ value: String?) -> String? {
        value.map { _ in mask }
    }

    /// A URL with the password of its user info masked (`RemoteStorageURL.masked`).
    static func maskedURL(_ url: String?) -> String? {
        url.map(RemoteStorageURL.masked)
    }
}
