import ArgumentParser
import ImageCore

/// What a `fetch` command line asks for, whoever read it: the argument
/// parser (`IMGCacheCommand.Fetch.plan`, with its `DownloadOptions` beside
/// it) or `init?(arguments:)`, which reads `fetch`'s usual lines without
/// swift-argument-parser (`PlainCommandLine`). Why: the parser's first parse
/// of `fetch` looks up its options by reflection and protocol conformances,
/// 19 M instructions (callgrind), a third of a 9-frame GIF thumbnail's run
/// and 17 times a warm hit's. Checked by one `validate()`, the parser's
/// (`Fetch.validate` calls it), so both read the same lines to the same
/// values and refuse the same ones; a line the plan refuses or does not
/// know goes to the parser, which says what is wrong in its own words.
/// `FetchPlanTests` proves that each line the plan reads, the parser reads
/// to the same plan, with no other download option set.
struct FetchPlan: Equatable {
    var cacheDirectory: String?
    var quiet = false
    var verbose = false
    var json = false
    /// `--progress` (true), `--no-progress` (false), or neither (nil).
    var progress: Bool?
    var noRemoteStorage = false
    var offline = false
    var placeholder = false
    /// Download options that shape only a transfer, or the answer to an
    /// origin's failure: read here so that a warm hit carrying them is still one.
    var staleIfError = false
    var insecure = false
    var retries = Defaults.retries
    var timeout: Double?
    var connectTimeout: Double?
    var maxTime: Double?
    var noStore = false
    /// `-o`'s files, one per URL, or none.
    var output: [String] = []
    var outputDir: String?
    var decode: OutputFormat.Pixels?
    var frame: Int?
    var thumbnail: String?
    var maxPixels: Int?
    var encode: OutputFormat.Encoding?
    var quality: Int?
    /// `--colorspace` as given; `colourSpace` is what applies.
    var askedColourSpace: ColourSpace?
    var noOrient = false
    var path = false
    var urls: [String] = []

    /// The options the plan reads, with every name the parser gives each
    /// for `fetch` and whether it takes a value (`OptionTablesTests` proves
    /// them the parser's). `init` reads the values by position, `-o` as
    /// often as it is given (a file per URL: through the parser, 1 000
    /// pairs cost 967 M instructions and 4 000 13.7 G, callgrind; a line
    /// left to it now gives it one `-o`, `OutputOperands`).
    /// Not read: the download options but `--offline`, `--placeholder` and
    /// those above, `--remote-storage`, and `--`.
    static let options: [PlainCommandLine.Option] = [
        (["--cache-dir"], true), (["-q", "--quiet"], false), (["-v", "--verbose"], false), (["--json"], false),
        (["--progress"], false), (["--no-progress"], false), (["--no-remote-storage"], false),
        (["--offline"], false), (["--placeholder"], false), (["--no-store"], false), (["-o", "--output"], true),
        (["--output-dir"], true), (["--decode"], true), (["--frame"], true), (["--thumbnail"], true),
        (["--max-pixels"], true), (["--encode"], true), (["--quality"], true), (["--colorspace"], true),
        (["--no-orient"], false), (["--path"], false), (["--stale-if-error"], false), (["-k", "--insecure"], false),
        (["--retries"], true), (["--timeout"], true), (["--connect-timeout"], true), (["--max-time"], true),
    ]

    init?(arguments: [String]) {
        // A bad `$IMGCACHE_REMOTE_STORAGE` is the parser's to judge: a usage
        // error unless the line overrides it (`RemoteStorageOptions.validate`).
        if let text = Environment.value(of: RemoteStorageOptions.environmentVariable),
            (try? RemoteStorageURL.parseList(text)) == nil
        {
            return nil
        }
        guard let line = PlainCommandLine(arguments, subcommand: "fetch", options: Self.options, repeating: 10),
            !(line.has(4) && line.has(5))
        else { return nil }
        cacheDirectory = line.values[0]
        (quiet, verbose, json) = (line.has(1), line.has(2), line.has(3))
        progress = line.has(4) ? true : line.has(5) ? false : nil
        (noRemoteStorage, offline, placeholder, noStore) = (line.has(6), line.has(7), line.has(8), line.has(9))
        output = line.repeated
        outputDir = line.values[11]
        // Each value as the parser converts it (`ExpressibleByArgument`:
        // `init(rawValue:)` for the enums, `Int.init(_:)` for numbers,
        // `DownloadOptions.seconds` for times).
        func value<T>(_ slot: Int, _ convert: (String) -> T?) -> T?? {
            guard let text = line.values[slot] else { return .some(nil) }
            return convert(text).map { .some($0) }
        }
        guard let decode = value(12, OutputFormat.Pixels.init(rawValue:)), let frame = value(13, { Int($0) }),
            let maxPixels = value(15, { Int($0) }), let encode = value(16, OutputFormat.Encoding.init(rawValue:)),
            let quality = value(17, { Int($0) }), let colourSpace = value(18, ColourSpace.init(rawValue:))
        else { return nil }
        (self.decode, self.frame, self.maxPixels, self.encode) = (decode, frame, maxPixels, encode)
        (self.quality, askedColourSpace) = (quality, colourSpace)
        (staleIfError, insecure) = (line.has(21), line.has(22))
        guard let retries = value(23, { Int($0) }), let timeout = value(24, DownloadOptions.seconds),
            let connectTimeout = value(25, DownloadOptions.seconds), let maxTime = value(26, DownloadOptions.seconds)
        else { return nil }
        self.retries = retries ?? Defaults.retries
        (self.timeout, self.connectTimeout, self.maxTime) = (timeout, connectTimeout, maxTime)
        thumbnail = line.values[14]
        (noOrient, path) = (line.has(19), line.has(20))
        urls = line.operands.map(\.percentEncodingRawBytes)
        // What the parser refuses: no URL, and what `validate()` of the
        // command and of its global options refuse.
        guard !urls.isEmpty, cacheDirectory?.isEmpty != true, !(quiet && verbose), !(quiet && progress == true),
            (try? validate()) != nil, (try? checkDownloadOptions()) != nil
        else { return nil }
    }

    /// The values the parser read, as a plan.
    init(
        cacheDirectory: String?, quiet: Bool, verbose: Bool, json: Bool, progress: Bool?, noRemoteStorage: Bool,
        offline: Bool, placeholder: Bool, staleIfError: Bool, insecure: Bool, retries: Int, timeout: Double?,
        connectTimeout: Double?, maxTime: Double?, noStore: Bool, output: [String], outputDir: String?,
        decode: OutputFormat.Pixels?, frame: Int?, thumbnail: String?, maxPixels: Int?,
        encode: OutputFormat.Encoding?, quality: Int?, askedColourSpace: ColourSpace?, noOrient: Bool, path: Bool,
        urls: [String]
    ) {
        (self.cacheDirectory, self.quiet, self.verbose, self.json) = (cacheDirectory, quiet, verbose, json)
        (self.progress, self.noRemoteStorage, self.offline) = (progress, noRemoteStorage, offline)
        (self.placeholder, self.noStore, self.output, self.outputDir) = (placeholder, noStore, output, outputDir)
        (self.staleIfError, self.insecure, self.retries) = (staleIfError, insecure, retries)
        (self.timeout, self.connectTimeout, self.maxTime) = (timeout, connectTimeout, maxTime)
        (self.decode, self.frame, self.thumbnail, self.maxPixels) = (decode, frame, thumbnail, maxPixels)
        (self.encode, self.quality, self.askedColourSpace) = (encode, quality, askedColourSpace)
        (self.noOrient, self.path, self.urls) = (noOrient, path, urls)
    }

    /// What `fetch` refuses of these values (usage errors, exit 64); the
    /// parser's `Fetch.validate` and the plan both call it.
    func validate() throws {
        try validateURLs(urls)
        if !output.isEmpty && output.count != urls.count {
            throw ValidationError("give -o once per URL (\(urls.count)), or use --output-dir")
        }
        if !output.isEmpty && outputDir != nil { throw ValidationError("-o and --output-dir cannot be combined") }
        let modes = [json, path, decode != nil && output.isEmpty && outputDir == nil].filter { $0 }
        if modes.count > 1 { throw ValidationError("choose one of --json, --path and --decode for stdout") }
        if (json && !output.isEmpty) || (path && (!output.isEmpty || outputDir != nil)) {
            throw ValidationError("--json and --path print to stdout; they do not take -o (--json takes --output-dir)")
        }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
        if frame != nil && !needsPixels { throw ValidationError("--frame needs --decode, --encode or --thumbnail") }
        if path && noStore { throw ValidationError("--path needs the disk cache; drop --no-store") }
        if let thumbnail, ScaleTarget(thumbnail: thumbnail) == nil {
            let sizes = thumbnail.lowercased().split(separator: "x", omittingEmptySubsequences: false).map {
                Int($0)
            }
            guard sizes.count == 2, sizes.allSatisfy({ $0 != nil }) else {
                throw ValidationError("--thumbnail must be WIDTHxHEIGHT, e.g. 512x512")
            }
            throw ValidationError("--thumbnail sizes must be positive, got '\(thumbnail)'")
        }
        if let maxPixels, maxPixels < 1 { throw ValidationError("--max-pixels must be 1 or more") }
        if thumbnail != nil && maxPixels != nil {
            throw ValidationError("choose one of --thumbnail and --max-pixels")
        }
        if encode != nil && decode != nil { throw ValidationError("choose one of --decode and --encode") }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100") }
        if (encode != nil || scaleTarget != nil) && path {
            throw ValidationError("--path prints the original; drop --thumbnail/--encode")
        }
        try refuseOptionsWithoutEffect()
    }

    /// What the parser's `DownloadOptions.validate` and
    /// `refuseOptionsWithoutEffect` refuse of the download options the plan reads.
    private func checkDownloadOptions() throws {
        try DownloadOptions.validateTimes(timeout: timeout, connectTimeout: connectTimeout, maxTime: maxTime)
        try DownloadOptions.validateRetries(retries)
        try DownloadOptions.refuseOptionsWithoutEffect(offline: offline, staleIfError: staleIfError, insecure: insecure)
    }

    /// The size asked for by --thumbnail or --max-pixels.
    var scaleTarget: ScaleTarget? {
        thumbnail.flatMap(ScaleTarget.init(thumbnail:)) ?? maxPixels.map(ScaleTarget.maxPixels)
    }

    /// `--colorspace`, or its default: sRGB for `--decode`, the original
    /// (profile kept) for encoded output.
    var colourSpace: ColourSpace { askedColourSpace ?? (decode != nil ? .srgb : .original) }

    /// Whether the output needs decoded pixels.
    var needsPixels: Bool { rendition.needsPixels }

    /// What the options ask to be made of each image. The re-encoding is
    /// --encode, or, for a scaled image without --decode, the original's kind.
    var rendition: ImageRendition {
        var rendition = ImageRendition()
        rendition.decodesPixels = decode != nil
        rendition.frame = frame
        rendition.scale = scaleTarget
        rendition.encoding =
            encode.map { .format($0) } ?? (scaleTarget != nil && decode == nil ? .matchingOriginal : nil)
        rendition.quality = quality
        rendition.appliesOrientation = !noOrient
        rendition.colourSpace = colourSpace
        return rendition
    }

    /// The request for `url`: `download`'s, where the parser read the line,
    /// else what `DownloadOptions.request` makes with only the download
    /// options the plan reads given; stored or not as `--no-store` says, rendered
    /// as the options ask.
    func request(for url: String, download: DownloadOptions?) -> ImageRequest {
        var request: ImageRequest
        if let download {
            request = download.request(for: url)
        } else {
            request = ImageRequest(url: url)
            request.network = offline ? .offline : .allowed
            request.wantsPlaceholder = placeholder
            (request.staleIfError, request.retries) = (staleIfError, retries)
            request.download.timeout = timeout
            request.download.connectTimeout = connectTimeout
            request.download.maxTime = maxTime
            request.download.allowsInsecureTLS = insecure
        }
        request.storesToDisk = !noStore
        request.render(rendition)
        return request
    }
}
