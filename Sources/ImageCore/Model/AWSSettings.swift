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
/// `AWS_DEFAULT_REGION`, else the profile's `region` in the config file,
/// else `us-east-1`; the endpoint from `AWS_ENDPOINT_URL_S3`, else
/// `AWS_ENDPOINT_URL`, else the profile's `endpoint_url` in the config file,
/// else AWS's own for the region; the credentials from
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, else
/// the profile `AWS_PROFILE` (default `default`): section `[NAME]` of the
/// shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default
/// `~/.aws/credentials`), else section `[profile NAME]` (`[default]` for the
/// default) of the config file (`AWS_CONFIG_FILE`, default `~/.aws/config`).
/// Credentials that cannot be used (`credentialProblem`) sign nothing. Its
/// mirror (`dump()`) masks the secrets, as `AWSCredentials`'s does.
public struct AWSSettings: Sendable, Equatable, CustomReflectable {
    /// The signing region.
    public var region = Self.defaultRegion
    /// A custom endpoint (`http://127.0.0.1:8333`), addressed path-style;
    /// nil: AWS's regional endpoint.
    public var endpoint: String?
    /// Nil: requests go unsigned (a public bucket).
    public var credentials: AWSCredentials?
    /// Why the credentials the environment names cannot be used, as the AWS
    /// CLI stops for them: a key id without its secret or a secret without
    /// its key id (in the environment or a profile), or an `AWS_PROFILE`
    /// that neither file has. Nil when there is none. A request that needs
    /// credentials then fails with it (`credentialRefusal`) rather than go
    /// unsigned or signed by another profile's keys: either would be refused
    /// as a policy's `AccessDenied`, which says nothing of what is wrong.
    public var credentialProblem: String?

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
                "credentials": credentials as Any, "credentialProblem": credentialProblem as Any,
            ], displayStyle: .struct)
    }

    /// The settings `environment` gives; `readFile` reads the shared
    /// credentials file and the config file (nil when one cannot be read:
    /// nothing from it). The files are read only when the environment
    /// leaves something to find in them.
    public init(environment: [String: String], readFile: (String) -> [UInt8]?) {
        let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        let environmentRegion = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION")
        region = environmentRegion ?? Self.defaultRegion
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case (let key?, let secret?):
            credentials = AWSCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
            if environmentRegion != nil, endpoint != nil { return }
        case (_?, nil):
            credentialProblem =
                "partial AWS credentials in the environment: AWS_ACCESS_KEY_ID is set, AWS_SECRET_ACCESS_KEY is not"
        case (nil, _?):
            credentialProblem =
                "partial AWS credentials in the environment: AWS_SECRET_ACCESS_KEY is set, AWS_ACCESS_KEY_ID is not"
        case (nil, nil): break
        }
        let home = value("HOME") ?? ""
        let expand = { (path: String) in path.hasPrefix("~/") ? home + path.dropFirst() : path }
        let profile = value("AWS_PROFILE") ?? "default"
        let configPath = expand(value("AWS_CONFIG_FILE") ?? "~/.aws/config")
        let config = readFile(configPath).map { Self.sections(String(decoding: $0, as: UTF8.self)) } ?? [:]
        let configSection =
            config[profile == "default" ? "default" : "profile \(profile)"] ?? config["profile \(profile)"]
        if environmentRegion == nil, let named = configSection?["region"], !named.isEmpty { region = named }
        if endpoint == nil, let named = configSection?["endpoint_url"], !named.isEmpty { endpoint = named }
        guard credentials == nil, credentialProblem == nil else { return }
        let credentialsPath = expand(value("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
        let shared = readFile(credentialsPath).map { Self.sections(String(decoding: $0, as: UTF8.self)) } ?? [:]
        // The profile's two places, in the AWS CLI's order.
        let places = [(shared[profile], credentialsPath), (configSection, configPath)]
        for (fields, place) in places {
            guard let fields else { continue }
            switch Self.credentials(in: fields) {
            case .found(let found):
                credentials = found
                return
            case .partial(let missing):
                credentialProblem = "partial AWS credentials in \(place), profile \(profile): \(missing)"
                return
            case .none: continue
            }
        }
        for (fields, place) in places {
            guard let way = Self.providers.first(where: { fields?[$0] != nil }) else { continue }
            credentialProblem =
                "profile \(profile) in \(place) gets its credentials by \(way), which imgcache does not run: "
                + "give them in the environment (eval \"$(aws configure export-credentials --profile \(profile) "
                + "--format env)\")"
            return
        }
        if value("AWS_PROFILE") != nil, shared[profile] == nil, configSection == nil {
            credentialProblem =
                "AWS_PROFILE names profile '\(profile)', which neither \(credentialsPath) nor \(configPath) has"
        }
    }

    /// The fields by which a profile names a way to get credentials other
    /// than keys (a command, a role to assume, SSO, a web identity), none of
    /// which imgcache runs: sent unsigned instead, its requests were refused
    /// as `AccessDenied`, which named none of it.
    static let providers = [
        "credential_process", "role_arn", "sso_session", "sso_start_url", "web_identity_token_file",
    ]

    /// Said of an S3 request refused when sent unsigned (no credentials found).
    public static let unsignedNote =
        "sent unsigned: no AWS credentials in the environment, the credentials file or the config file"

    /// Whether `request` (before `signing`) goes to S3 unsigned: an `s3://`
    /// URL, and no credentials found.
    public func sendsUnsigned(_ request: DownloadRequest) -> Bool {
        credentials == nil && S3ObjectURL(request.url) != nil
    }

    /// What a profile's fields hold: credentials, half of them (what is
    /// missing), or none.
    enum ProfileCredentials: Equatable {
        case found(AWSCredentials)
        case partial(String)
        case none
    }

    /// The credentials in a profile's fields (`aws_access_key_id`,
    /// `aws_secret_access_key`, `aws_session_token`).
    static func credentials(in fields: [String: String]) -> ProfileCredentials {
        let field = { (name: String) in fields[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch (field("aws_access_key_id"), field("aws_secret_access_key")) {
        case (let key?, let secret?):
            return .found(
                AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: fields["aws_session_token"]))
        case (_?, nil): return .partial("aws_access_key_id is set, aws_secret_access_key is not")
        case (nil, _?): return .partial("aws_secret_access_key is set, aws_access_key_id is not")
        case (nil, nil): return .none
        }
    }

    /// The sections of an AWS credentials or config file (INI: `[name]`
    /// headers, `key = value` lines with keys lowercased, `#` and `;`
    /// comments), by name as written between the brackets, trimmed. A
    /// header is a line's `[` to its last `]`, whatever follows (a comment),
    /// as the AWS CLI's parser (Python's configparser) reads it: a header
    /// not taken for one put its section's keys into the section above.
    static func sections(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var section: String?
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), let close = line.lastIndex(of: "]") {
                let name = String(line[line.index(after: line.startIndex)..<close].trimmingSpaces())
                section = name
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            guard let section, let equals = line.firstIndex(of: "=") else { continue }
            sections[section, default: [:]][line[..<equals].trimmingSpaces().lowercased()] = String(
                line[line.index(after: equals)...].trimmingSpaces())
        }
        return sections
    }

    /// Why `request` (as `signing` makes it) cannot be sent: it needs
    /// credentials (an `s3://` URL, or one to sign without `-u`) and those
    /// found cannot be used (`credentialProblem`); nil otherwise.
    public func credentialRefusal(_ request: DownloadRequest) -> ImageCoreError? {
        guard let credentialProblem else { return nil }
        let needs = S3ObjectURL(request.url) != nil || (request.awsSigV4 != nil && request.credentials == nil)
        return needs ? ImageCoreError(.usage, credentialProblem) : nil
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
