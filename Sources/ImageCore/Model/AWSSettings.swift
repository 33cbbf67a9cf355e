/// An AWS access key, its secret and, for temporary credentials, a session
/// token. Its `description` and its mirror (`dump()`) show the key id only:
/// the secret and the token never reach output, logs or the cache.
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    /// Credentials; an empty session token counts as none.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var description: String { "access key \(accessKeyID)" }

    /// The key id; the secret and the token masked.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessKeyID": accessKeyID, "secretAccessKey": SecretRedaction.mask,
                "sessionToken": SecretRedaction.masked(sessionToken) as Any,
            ], displayStyle: .struct)
    }
}

/// Where S3 requests go and who signs them, found as the AWS CLI finds them
/// (man page, ENVIRONMENT): the region from `AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, else `us-east-1`; the endpoint from
/// `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else AWS's own for the
/// region; the credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`
/// and `AWS_SESSION_TOKEN`, else the shared credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`), section
/// `AWS_PROFILE` (default `default`). Its mirror (`dump()`) masks the
/// secrets, as `AWSCredentials`'s does.
public struct AWSSettings: Sendable, Equatable, CustomReflectable {
    /// The signing region.
    public var region = Self.defaultRegion
    /// A custom endpoint (`http://127.0.0.1:8333`), addressed path-style;
    /// nil: AWS's regional endpoint.
    public var endpoint: String?
    /// Nil: requests go unsigned (a public bucket).
    public var credentials: AWSCredentials?

    /// The region when nothing names one, as the AWS CLI's.
    public static let defaultRegion = "us-east-1"

    /// No endpoint, no credentials, the default region.
    public init() {}

    /// Region, endpoint (any password masked) and credentials (their secrets masked).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "region": region, "endpoint": SecretRedaction.maskedURL(endpoint) as Any,
                "credentials": credentials as Any,
            ], displayStyle: .struct)
    }

    /// The settings `environment` gives; `readFile` reads the shared
    /// credentials file (nil when it cannot be read: no credentials from it).
    public init(environment: [String: String], readFile: (String) -> [UInt8]?) {
        let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? Self.defaultRegion
        endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        if let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            credentials = AWSCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
            return
        }
        let home = value("HOME") ?? ""
        let path = value("AWS_SHARED_CREDENTIALS_FILE").map { $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 }
        guard let file = readFile(path ?? "\(home)/.aws/credentials") else { return }
        credentials = Self.credentials(
            inSharedFile: String(decoding: file, as: UTF8.self), profile: value("AWS_PROFILE") ?? "default")
    }

    /// The credentials of section `[profile]` of an AWS shared credentials
    /// file (INI: `key = value` lines, `#` and `;` comments); nil if the
    /// section lacks a key id or a secret.
    static func credentials(inSharedFile text: String, profile: String) -> AWSCredentials? {
        var section: Substring?
        var fields: [String: String] = [:]
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingSpaces()
                continue
            }
            guard section == Substring(profile), let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals].trimmingSpaces().lowercased()] = String(
                line[line.index(after: equals)...].trimmingSpaces())
        }
        guard let key = fields["aws_access_key_id"], !key.isEmpty,
            let secret = fields["aws_secret_access_key"], !secret.isEmpty
        else { return nil }
        return AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: fields["aws_session_token"])
    }

    /// `download` (whose URL is `s3://BUCKET/KEY`) as the signed http(s)
    /// request that fetches the object; unchanged if its URL is not an
    /// `s3://` one.
    public func resolving(_ download: DownloadRequest) -> DownloadRequest {
        guard let object = S3ObjectURL(download.url) else { return download }
        var signed = download
        signed.url = object.httpURL(endpoint: endpoint, region: region)
        signed.sign(with: credentials, region: region)
        return signed
    }
}

extension AWSSettings {
    /// `download` as it is sent: an `s3://` URL resolved and signed
    /// (`resolving`), and a request to sign (`awsSigV4`) without credentials
    /// (`-u`) signed with these credentials. The downloader sends this, and
    /// the failed-URL list keys a failure on it, so that other credentials
    /// make another request.
    public func signing(_ download: DownloadRequest) -> DownloadRequest {
        var request = resolving(download)
        if let provider = request.awsSigV4, request.credentials == nil {
            request.sign(with: credentials, region: region)
            request.awsSigV4 = provider
        }
        return request
    }
}

extension DownloadRequest {
    /// Signs the request for S3 in `region` with SigV4 (curl's
    /// `--aws-sigv4 aws:amz:REGION:s3`), the session token in its header;
    /// no credentials: sent unsigned.
    public mutating func sign(with credentials: AWSCredentials?, region: String) {
        guard let credentials else { return }
        awsSigV4 = "aws:amz:\(region):s3"
        self.credentials = "\(credentials.accessKeyID):\(credentials.secretAccessKey)"
        if let token = credentials.sessionToken {
            headers.append(HTTPHeader(name: "x-amz-security-token", value: token))
        }
    }
}
