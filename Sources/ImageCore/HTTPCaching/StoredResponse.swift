/// What the disk cache keeps of a response to judge its freshness and
/// revalidate it later, as a private cache under RFC 9111.
public struct StoredResponse: Sendable, Equatable {
    /// The ETag, verbatim.
    public var etag: String?
    /// The Last-Modified date, verbatim.
    public var lastModified: String?
    /// Cache-Control, verbatim (directives are parsed when the entry is used).
    public var cacheControl: String?
    /// When the response stops being fresh (seconds since 1970), computed
    /// when it was received; nil if it was never fresh.
    public var freshUntil: Double?
    /// The Vary header, verbatim.
    public var vary: String?
    /// A digest of the request header values the response varies on.
    public var variantKey: String?

    /// A record with the given fields.
    public init(
        etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil,
        freshUntil: Double? = nil, vary: String? = nil, variantKey: String? = nil
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.freshUntil = freshUntil
        self.vary = vary
        self.variantKey = variantKey
    }

    /// What to keep of a response to `request`,
    /// sent at `requestTime` and received at `responseTime`.
    public init(headers: ResponseHeaders, request: DownloadRequest, requestTime: Double, responseTime: Double) {
        etag = headers[.etag]
        lastModified = headers[.lastModified]
        cacheControl = headers[.cacheControl]
        vary = headers[.vary]
        variantKey = Self.variantKey(vary: vary, request: request)
        freshUntil = Self.freshUntil(headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// The record after a 304: its headers update the stored ones
    /// (RFC 9111 §4.3.4) and restart the freshness clock.
    public func updated(
        by headers: ResponseHeaders, request: DownloadRequest, requestTime: Double,
        responseTime: Double
    ) -> StoredResponse {
        var merged = ResponseHeaders()
        merged[.etag] = etag
        merged[.lastModified] = lastModified
        merged[.cacheControl] = cacheControl
        merged[.vary] = vary
        for (name, value) in headers.fields { merged[name] = value }
        return StoredResponse(headers: merged, request: request, requestTime: requestTime, responseTime: responseTime)
    }

    /// The freshness deadline (RFC 9111 §4.2): the freshness lifetime
    /// (max-age, else Expires − Date, else 10% of the time since
    /// Last-Modified) less the response's age when it arrived (Age header,
    /// clock skew and transit time counted).
    static func freshUntil(headers: ResponseHeaders, requestTime: Double, responseTime: Double) -> Double? {
        let control = CacheControl(headers[.cacheControl])
        let date = headers[.date].flatMap(HTTPDate.parse) ?? responseTime
        let lifetime: Double
        if let maxAge = control.maxAge {
            lifetime = maxAge
        } else if let expires = headers[.expires] {
            // An invalid Expires ("0", "-1") means already expired (§5.3).
            lifetime = (HTTPDate.parse(expires) ?? 0) - date
        } else if let modified = headers[.lastModified].flatMap(HTTPDate.parse), modified < date {
            lifetime = (date - modified) / 10
        } else {
            return nil
        }
        let ageValue = headers[.age].flatMap { Double($0.trimmingSpaces()) } ?? 0
        let apparentAge = max(0, responseTime - date)
        let initialAge = max(apparentAge, ageValue + max(0, responseTime - requestTime))
        return responseTime - initialAge + lifetime
    }

    /// "*" if the response varies on everything, else a digest of the
    /// request's values of the named headers; nil without Vary. The
    /// default `Accept` counts as `DownloadRequest.varyDefaultAccept`.
    static func variantKey(vary: String?, request: DownloadRequest) -> String? {
        guard let vary else { return nil }
        let names = Set(vary.split(separator: ",").map { $0.trimmingSpaces().lowercased() }).filter { !$0.isEmpty }
        if names.contains("*") { return "*" }
        guard !names.isEmpty else { return nil }
        let values = names.sorted().map { name in
            let sent = request.headerValue(name) ?? (name == "accept" ? DownloadRequest.varyDefaultAccept : "")
            return "\(name): \(sent)"
        }
        .joined(separator: "\n")
        return String(Digest.sha256Hex(Array(values.utf8)).prefix(16))
    }
}
