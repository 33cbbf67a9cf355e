import ImageCore

/// Has the library fetch every URL of `fetch` and writes each result in
/// input order: bytes, pixels, metadata or a path, to stdout or files.
struct FetchOutput {
    let plan: FetchPlan
    /// The download options the parser read; nil for a line `FetchPlan` read.
    let download: DownloadOptions?
    let manager: ImageManager
    let progress: ProgressBar?
    /// `--output-dir`'s file names, decided from all the URLs up front.
    private let names: OutputDirectoryNames?

    init(plan: FetchPlan, download: DownloadOptions?, manager: ImageManager, progress: ProgressBar?) {
        (self.plan, self.download, self.manager, self.progress) = (plan, download, manager, progress)
        names =
            plan.outputDir == nil
            ? nil : OutputDirectoryNames(urls: plan.urls, keys: plan.urls.map(manager.key(for:)))
    }

    /// Fetches everything; returns the kinds of the failures.
    func fetchAll() async -> [ImageCoreError.Kind] {
        var failures: [ImageCoreError.Kind] = []
        let transfers = TransferProgress(count: plan.urls.count, bar: progress)
        defer { progress?.finish() }
        let requests = plan.urls.enumerated().map { index, url in
            var request = plan.request(for: url, download: download)
            // Streamed pixels are decoded by the writer, not kept in the response.
            if streamsPixels { request.decodesPixels = false }
            if progress != nil {
                request.download.onProgress = { received, expected in
                    transfers.update(index, received: received, expected: expected)
                }
            }
            return request
        }
        await ProgressBar.redrawing(progress) {
            await manager.loadInOrder(requests, completed: transfers.finish) { index, result in
                if let failure = emit(index: index, result: result, request: requests[index]) {
                    failures.append(failure)
                }
            }
        }
        return failures
    }

    /// Writes one result of `request`; returns the failure kind if it failed.
    private func emit(index: Int, result: ImageLoadResult, request: ImageRequest) -> ImageCoreError.Kind? {
        // As printed: a password in the URL is sent, never shown.
        let url = URLUserInfo.shown(plan.urls[index])
        var outcome = result.outcome
        var written: String?
        if case .success(let response) = outcome, !plan.json || plan.outputDir != nil {
            do {
                written = try write(response, index: index, request: request)
            } catch is StdoutFailed {
                // Reported once for the run, when it ends (exit 23).
            } catch {
                outcome = .failure(ImageCoreError(reporting: error))
            }
        }
        if plan.json {
            let record = JSONRecord.result(
                url: url, key: manager.key(for: url), outcome: outcome, durationMs: result.durationMs, path: written)
            StandardStreams.print(record.text, above: progress)
        } else if let written, !plan.quiet {
            // Which file is which URL, for scripts (`--output-dir`).
            StandardStreams.print("\(url)\t\(written)", above: progress)
        }
        if case .success(let response) = outcome, let warning = Self.cacheWarning(response), !plan.quiet {
            StandardStreams.print("imgcache: \(url): \(warning)", toStderr: true, above: progress)
        }
        guard case .failure(let error) = outcome else { return nil }
        StandardStreams.print("imgcache: \(url): \(error.message)", toStderr: true, above: progress)
        return error.kind
    }

    /// What the cache could not do for an image delivered all the same, in
    /// one line: keep it, or read the copy it had. A warning, not a failure:
    /// the cache is an optimisation (man page, EXIT STATUS).
    static func cacheWarning(_ response: ImageResponse) -> String? {
        switch (response.notStored, response.notRead) {
        case (nil, nil): nil
        case (let stored?, nil): "written, but not cached: \(stored.message)"
        case (nil, let read?): "the cached copy could not be read, fetched again: \(read.message)"
        case (let stored?, let read?):
            "written, but not cached: \(stored.message) (the cached copy could not be read: \(read.message))"
        }
    }

    /// Writes one image, the answer to `request`, where the options say;
    /// returns the file written under `--output-dir`, if that is where it went.
    private func write(_ response: ImageResponse, index: Int, request: ImageRequest) throws -> String? {
        if plan.path {
            StandardStreams.print(try Self.cachedPath(response), above: progress)
            return nil
        }
        if streamsPixels, let format = plan.decode, response.image == nil {
            return try writeStreamed(response, for: request, as: format, index: index)
        }
        let bytes: [UInt8]
        let fileExtension: String
        if let format = plan.decode, let image = response.image {
            bytes = try encode(image, as: format)
            fileExtension = OutputFormat.pixels(format).fileExtension
        } else if let encoded = response.encoded {
            bytes = encoded.bytes
            fileExtension = OutputFormat.encoded(encoded.format).fileExtension
        } else {
            bytes = response.bytes
            fileExtension = response.info.format.fileExtension
        }
        switch destination(index: index) {
        case .file, .stdout: try Self.write(bytes, to: destination(index: index))
        case .directory(let directory):
            let path = file(in: directory, for: response, index: index, fileExtension: fileExtension)
            try OutputFile.write(bytes, to: path)
            return path
        case .terminal: printSummary(response)
        }
        return nil
    }

    /// `--path`'s answer: the file holding the response's bytes in the cache.
    /// The path is what was asked: an image the cache could not keep has
    /// none, and a temporary file would be left for nobody to remove.
    static func cachedPath(_ response: ImageResponse) throws -> String {
        guard let path = response.path else {
            let cause = response.notStored?.message ?? "not stored in the disk cache (see -v for why)"
            throw ImageCoreError(.cacheIO, "no path to print: not cached: \(cause)")
        }
        return path
    }

    /// Writes an image's bytes to a file (atomically) or stdout; throws
    /// `StdoutFailed` when stdout cannot be written (reported once, at the end).
    static func write(_ bytes: [UInt8], to destination: Destination) throws {
        switch destination {
        case .file(let path): try OutputFile.write(bytes, to: path)
        case .stdout: if !StandardStreams.write(bytes) { throw StdoutFailed() }
        case .directory, .terminal: preconditionFailure("only a file or stdout takes bytes as they are")
        }
    }

    /// The absolute path of URL `index`'s file under `--output-dir`.
    private func file(in directory: String, for response: ImageResponse, index: Int, fileExtension: String) -> String {
        let name = names?.name(index: index, key: response.key, fileExtension: fileExtension)
        return Environment.absolutePath(OutputFile.path(name ?? "\(response.key.hash).\(fileExtension)", in: directory))
    }

    /// Where one image goes.
    enum Destination {
        case file(String)
        case directory(String)
        case terminal
        case stdout

        /// `-o FILE`'s destination (`-o -` is stdout, even a terminal, as curl's).
        static func output(_ file: String) -> Destination {
            file == "-" ? .stdout : .file(Environment.absolutePath(file))
        }
    }

    /// `-o FILE` (`-o -` is stdout, even a terminal, as curl's), else
    /// `--output-dir`, else stdout, where a terminal gets a summary.
    private func destination(index: Int) -> Destination {
        if let file = plan.output.isEmpty ? nil : plan.output[index] { return .output(file) }
        if let directory = plan.outputDir { return .directory(directory) }
        return StandardStreams.isTerminal(1) ? .terminal : .stdout
    }

    private func printSummary(_ response: ImageResponse) {
        StandardStreams.print(
            summary(response) + " (not written to a terminal: use -o FILE or redirect stdout)", above: progress)
    }

    /// Whether `--decode ppm|pam` pixels go straight from the decoder to the
    /// output, row by row, with no decoded image kept: full size, every frame.
    private var streamsPixels: Bool {
        guard let decode = plan.decode, decode.isStreamable, !plan.json else { return false }
        return plan.scaleTarget == nil && plan.rendition.encoding == nil && plan.frame == nil
    }

    /// Decodes `response` into the output as it goes (see `streamsPixels`),
    /// oriented and converted as `request` asks; the same destinations as `write`.
    private func writeStreamed(
        _ response: ImageResponse, for request: ImageRequest, as format: OutputFormat.Pixels, index: Int
    ) throws -> String? {
        let decode = { (output: @escaping OutputFile.Writer) throws in
            try manager.writePixels(of: response, for: request, as: format, to: output)
        }
        switch destination(index: index) {
        case .file(let path): try OutputFile.write(to: path, producing: decode)
        case .directory(let directory):
            let path = file(
                in: directory, for: response, index: index, fileExtension: OutputFormat.pixels(format).fileExtension)
            try OutputFile.write(to: path, producing: decode)
            return path
        case .terminal: printSummary(response)
        case .stdout:
            try decode { buffer in
                guard StandardStreams.write(buffer) else { throw StdoutFailed() }
            }
        }
        return nil
    }

    /// Stdout could not be written: the image is not lost to the cache, and
    /// the run ends with one `write error` line for all URLs, not one each.
    struct StdoutFailed: Error {}

    private func summary(_ response: ImageResponse) -> String {
        let info = response.info
        let frames = info.frameCount > 1 ? ", \(info.frameCount) frames" : ""
        return "\(response.url): \(info.format.rawValue.uppercased()) \(info.width)×\(info.height)\(frames), "
            + "\(Quantities.formatSize(response.bytes.count)), \(response.source.rawValue)"
    }
}
