import ArgumentParser
import ImageCore

/// The download and cache-behaviour options shared by `fetch` and `prefetch`.
struct DownloadOptions: ParsableArguments {
    @Flag(help: "Request a URL even if it is on the failed-URL list.")
    var retryFailed = false

    @Flag(
        help: ArgumentHelp(
            "With --json: add thumbhash, blurhash and dominant_color to each record (computed once from a 100-pixel decode and kept with the entry)."
        ))
    var placeholder = false

    @Flag(
        help:
            "Never use the network: serve what is cached, stale included (unless the server said must-revalidate or no-cache); anything else is exit 7."
    )
    var offline = false

    @Flag(help: "Revalidate cached entries with the server (ETag, Last-Modified) even if they are fresh.")
    var refresh = false

    @Flag(help: "Serve a stale cached entry when the server fails transiently (network error, 408, 429, 5xx).")
    var staleIfError = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Retries of a transient failure, with exponential backoff or the server's Retry-After.", valueName: "n"))
    var retries = Defaults.retries

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Most connections to one host (default: the concurrency).", valueName: "n"))
    var maxPerHost: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Give up on a download when no byte has arrived for this many seconds (default 15; 30s and 2m work too, as in imgcache.conf).",
            valueName: "sec"),
        transform: DownloadOptions.parsedSeconds)
    var timeout: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Time allowed to connect, TLS included, in seconds (default 10).", valueName: "sec"),
        transform: DownloadOptions.parsedSeconds)
    var connectTimeout: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Total time for one attempt, in seconds (default: none).", valueName: "sec"),
        transform: DownloadOptions.parsedSeconds)
    var maxTime: Double?

    @Option(
        help: ArgumentHelp(
            "The whole run's download rate, all transfers together (e.g. 500K, 2M).", valueName: "rate"))
    var limitRate: String?

    @Option(
        help: ArgumentHelp(
            "New requests per host per second or minute (e.g. 4/s, 30/m).", valueName: "n/s|n/m"))
    var rate: String?

    @Option(
        name: [.customShort("H"), .long], parsing: .unconditionalSingleValue,
        help: ArgumentHelp("Extra request header (repeatable).", valueName: "Name: value"))
    var header: [String] = []

    @Option(
        name: [.customShort("u"), .long], parsing: .unconditional,
        help: ArgumentHelp(
            "HTTP authentication; never stored in the cache. A URL's own user:password@ is sent the same way "
                + "(this option wins), never part of its key, and shown as user:***, or by -v without it.",
            valueName: "user:password"))
    var user: String?

    @Option(
        name: .customLong("aws-sigv4"),
        help: ArgumentHelp(
            "Sign requests with AWS Signature Version 4, as curl's option does (e.g. aws:amz:us-east-1:s3); "
                + "the key and secret come from --user KEY:SECRET, else from the AWS environment or profile.",
            valueName: "provider1[:provider2[:region[:service]]]"))
    var awsSigV4: String?

    @Option(
        help: ArgumentHelp("Read and update cookies in this Netscape-format file.", valueName: "file"),
        completion: .file())
    var cookieJar: String?

    @Flag(name: [.customShort("k"), .long], help: "Skip TLS certificate verification.")
    var insecure = false

    @Option(
        help: ArgumentHelp(
            "Proxy URL (http_proxy, https_proxy and no_proxy are honoured by default).", valueName: "url"))
    var proxy: String?

    @OptionGroup var key: KeyOptions

    @Option(help: ArgumentHelp("Largest body accepted (e.g. 64M).", valueName: "size"))
    var maxBytes = "\(Defaults.maxBytes >> 20)M"

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Most redirects followed (only to http and https).", valueName: "n")
    )
    var maxRedirects = Defaults.maxRedirects

    @Option(help: ArgumentHelp("Largest image accepted, in pixels per frame (e.g. 100M).", valueName: "n"))
    var limitPixels = "\(Defaults.maxPixels / 1_000_000)M"

    @Option(parsing: .unconditional, help: ArgumentHelp("Most frames an animation may have.", valueName: "n"))
    var limitFrames = Defaults.maxFrames

    @Option(help: ArgumentHelp("Most pixels over all frames of an animation (e.g. 2G).", valueName: "n"))
    var limitTotalPixels = "\(Defaults.maxTotalPixels / 1_000_000_000)G"

    @Option(parsing: .unconditional, help: ArgumentHelp("Most scans a progressive JPEG may have.", valueName: "n"))
    var limitScans = Defaults.maxJPEGScans

    /// The decoding limits these options set. Pixel counts take the
    /// suffixes K, M, G as powers of 1000.
    var limits: DecodingLimits {
        DecodingLimits(
            maxPixels: Quantities.parseCount(limitPixels) ?? Defaults.maxPixels, maxFrames: limitFrames,
            maxTotalPixels: Quantities.parseCount(limitTotalPixels) ?? Defaults.maxTotalPixels, maxJPEGScans: limitScans
        )
    }

    func validate() throws {
        try Self.validateTimes(timeout: timeout, connectTimeout: connectTimeout, maxTime: maxTime)
        if let limitRate, (Quantities.parseSize(limitRate) ?? 0) <= 0 {
            throw ValidationError("--limit-rate: bad rate '\(limitRate)' (e.g. 500K)")
        }
        if let rate, RequestRate(parsing: rate) == nil {
            throw ValidationError("--rate: bad rate '\(rate)' (N/s or N/m)")
        }
        guard let bytes = Quantities.parseSize(maxBytes) else {
            throw ValidationError("--max-bytes: bad size '\(maxBytes)'")
        }
        guard bytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard maxRedirects >= 0 else { throw ValidationError("--max-redirects must be 0 or more") }
        guard let pixels = Quantities.parseCount(limitPixels), pixels > 0,
            let totalPixels = Quantities.parseCount(limitTotalPixels), totalPixels > 0, limitFrames > 0, limitScans > 0
        else {
            throw ValidationError("--limit-* values must be positive counts (K, M, G allowed for pixels)")
        }
        try Self.validateRetries(retries)
        if let maxPerHost, !(1...256).contains(maxPerHost) {
            throw ValidationError("--max-per-host must be 1 to 256")
        }
        for line in header where HTTPHeader(parsing: line) == nil {
            throw ValidationError("--header '\(line)' is not of the form 'Name: value'")
        }
        if let user, !user.contains(":") { throw ValidationError("--user must be USER:PASSWORD") }
        if let awsSigV4, !DownloadRequest.isValidAWSSigV4(awsSigV4) {
            throw ValidationError("--aws-sigv4: bad provider '\(awsSigV4)' (PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]])")
        }
        // The jar is written when the run ends: a jar that cannot be would lose the cookies silently.
        if let cookieJar, let reason = OutputFile.unwritableReason(Environment.absolutePath(cookieJar)) {
            throw ValidationError("--cookie-jar cannot be written (\(reason))")
        }
    }

    /// Seconds as `--timeout`, `--connect-timeout` and `--max-time` take
    /// them: a number, or a duration as imgcache.conf's settings of the same
    /// names take it (`30s`, `2m`), so a value copied from the file works on
    /// the command line too. Nil if neither.
    static func seconds(_ text: String) -> Double? {
        Double(text) ?? Quantities.parseDuration(text)
    }

    /// `seconds`, for the parser: a value that is neither is its usual
    /// "the value ... is invalid" usage error.
    static func parsedSeconds(_ text: String) throws -> Double {
        guard let value = seconds(text) else { throw ValidationError("not a number of seconds or a duration") }
        return value
    }

    /// What `validate` refuses of `--timeout`, `--connect-timeout` and
    /// `--max-time`, whoever read them (the parser, or `FetchPlan`).
    static func validateTimes(timeout: Double?, connectTimeout: Double?, maxTime: Double?) throws {
        for (name, value) in [("--timeout", timeout), ("--connect-timeout", connectTimeout), ("--max-time", maxTime)] {
            if let value, !(value > 0) { throw ValidationError("\(name) must be positive") }
        }
    }

    /// What `validate` refuses of `--retries`, whoever read it.
    static func validateRetries(_ retries: Int) throws {
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be 0 to 10") }
    }

    /// The cache key policy these options ask for.
    /// Sets what these options say about the manager: the key policy, the
    /// cookie jar, connections per host, the run's rate limits and the
    /// decoding limits. Options not given leave imgcache.conf's values.
    func apply(to configuration: inout ImageManager.Configuration) {
        configuration.keyPolicy = key.policy
        configuration.cookieJar = cookieJar.map(Environment.absolutePath)
        configuration.maxConnectionsPerHost = maxPerHost
        configuration.maxBytesPerSecond = limitRate.flatMap(Quantities.parseSize)
        configuration.requestRate = rate.flatMap(RequestRate.init(parsing:))
        configuration.limits = limits
    }

    /// An image request for `url` with these options.
    func request(for url: String) -> ImageRequest {
        var request = ImageRequest(url: url)
        request.retriesFailed = retryFailed
        request.network = offline ? .offline : .allowed
        request.refresh = refresh
        request.staleIfError = staleIfError
        request.retries = retries
        request.download.headers = header.compactMap(HTTPHeader.init(parsing:))
        // -u wins over a URL's own user:password@, as in curl.
        if let user { request.download.credentials = user }
        request.download.awsSigV4 = awsSigV4
        // Nil where not given: imgcache.conf's value applies, else the default.
        request.download.timeout = timeout
        request.download.connectTimeout = connectTimeout
        request.download.maxTime = maxTime
        request.download.allowsInsecureTLS = insecure
        request.download.proxy = proxy
        request.download.maxBytes = Quantities.parseSize(maxBytes) ?? request.download.maxBytes
        request.download.maxRedirects = maxRedirects
        request.wantsPlaceholder = placeholder
        return request
    }
}

/// Checks that each argument is an `s3://BUCKET/KEY` URL, or an http or
/// https URL that WHATWG URL parsing accepts (`http://[::1` is not): a
/// usage error (exit 64) before anything is fetched, looked up or removed.
func validateURLs(_ urls: [String]) throws {
    for url in urls {
        if let refusal = URLNormalization.refusal(of: url) {
            throw ValidationError("'\(URLUserInfo.shown(url))' is \(refusal)")
        }
    }
}
