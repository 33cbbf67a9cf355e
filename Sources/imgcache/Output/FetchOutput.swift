import ImageCore

/// Has the library fetch every URL of `fetch` and writes each result in
/// input order: bytes, pixels, metadata or a path, to stdout or files.
struct FetchOutput {
    let command: IMGCacheCommand.Fetch
    let manager: ImageManager
    let progress: ProgressBar?

    /// Fetches everything; returns the kinds of the failures.
    func fetchAll() async -> [ImageCoreError.Kind] {
        var failures: [ImageCoreError.Kind] = []
        let transfers = TransferProgress(count: command.urls.count, bar: progress)
        defer { progress?.finish() }
        let requests = command.urls.enumerated().map { index, url in
            var request = command.download.request(for: url)
            request.render(command.rendition)
            // Streamed pixels are decoded by the writer, not kept in the response.
            if streamsPixels { request.decodesPixels = false }
            if progress != nil {
                request.download.onProgress = { received, expected in
                    transfers.update(index, received: received, expected: expected)
                }
            }
            return request
        }
        await manager.loadInOrder(requests, completed: transfers.finish) { index, result in
            if let failure = emit(index: index, result: result) { failures.append(failure) }
        }
        return failures
    }

    /// Writes one result; returns the failure kind if it failed.
    private func emit(index: Int, result: ImageLoadResult) -> ImageCoreError.Kind? {
        let url = command.urls[index]
        var outcome = result.outcome
        if case .success(let response) = outcome, !command.global.json {
            do {
                try write(response, index: index)
            } catch {
                outcome = .failure(ImageCoreError(reporting: error))
            }
        }
        if command.global.json {
            let record = JSONRecord.result(
                url: url, key: manager.key(for: url), outcome: outcome, durationMs: result.durationMs)
            StandardStreams.print(record.text, above: progress)
        }
        if case .success(let response) = outcome, response.source == .downloaded, let unstored = manager.readOnlyReason
        {
            // The image was written; the cache could not keep it.
            outcome = .failure(unstored)
        }
        guard case .failure(let error) = outcome else { return nil }
        StandardStreams.print("imgcache: \(url): \(error.message)", toStderr: true, above: progress)
        return error.kind
    }

    private func write(_ response: ImageResponse, index: Int) throws {
        if command.path {
            guard let path = response.path else { throw ImageCoreError(.cacheIO, "not stored in the disk cache") }
            StandardStreams.print(path, above: progress)
            return
        }
        if streamsPixels, let format = command.decode, response.image == nil {
            return try writeStreamed(response, as: format, index: index)
        }
        let bytes: [UInt8]
        let fileExtension: String
        if let format = command.decode, let image = response.image {
            bytes = try encode(image, as: format)
            fileExtension = OutputFormat.pixels(format).fileExtension
        } else if let encoded = response.encoded {
            bytes = encoded.bytes
            fileExtension = OutputFormat.encoded(encoded.format).fileExtension
        } else {
            bytes = response.bytes
            fileExtension = response.info.format.fileExtension
        }
        if let file = command.output.isEmpty ? nil : command.output[index] {
            try OutputFile.write(bytes, to: Environment.absolutePath(file))
        } else if let directory = command.outputDir {
            try OutputFile.write(
                bytes,
                to: Environment.absolutePath(OutputFile.path("\(response.key.hash).\(fileExtension)", in: directory)))
        } else if StandardStreams.isTerminal(1) {
            StandardStreams.print(
                summary(response) + " (not written to a terminal: use -o FILE or redirect stdout)", above: progress)
        } else if !StandardStreams.write(bytes) {
            throw ImageCoreError(.failure, "cannot write to stdout")
        }
    }

    /// Whether `--decode ppm|pam` pixels go straight from the decoder to the
    /// output, row by row, with no decoded image kept: full size, every frame.
    private var streamsPixels: Bool {
        guard let decode = command.decode, decode.isStreamable, !command.global.json else { return false }
        return command.scaleTarget == nil && command.rendition.encoding == nil && command.frame == nil
    }

    /// Decodes `response` into the output as it goes (see `streamsPixels`);
    /// the same destinations as `write`.
    private func writeStreamed(_ response: ImageResponse, as format: OutputFormat.Pixels, index: Int) throws {
        let decode = { (output: @escaping OutputFile.Writer) throws in
            try manager.writePixels(of: response, as: format, to: output)
        }
        if let file = command.output.isEmpty ? nil : command.output[index] {
            try OutputFile.write(to: Environment.absolutePath(file), producing: decode)
        } else if let directory = command.outputDir {
            let name = "\(response.key.hash).\(OutputFormat.pixels(format).fileExtension)"
            try OutputFile.write(to: Environment.absolutePath(OutputFile.path(name, in: directory)), producing: decode)
        } else if StandardStreams.isTerminal(1) {
            StandardStreams.print(summary(response) + " (not written to a terminal: use -o FILE or redirect stdout)")
        } else {
            try decode { buffer in
                guard StandardStreams.write(buffer) else { throw ImageCoreError(.failure, "cannot write to stdout") }
            }
        }
    }

    private func summary(_ response: ImageResponse) -> String {
        let info = response.info
        let frames = info.frameCount > 1 ? ", \(info.frameCount) frames" : ""
        return "\(response.url): \(info.format.rawValue.uppercased()) \(info.width)×\(info.height)\(frames), "
            + "\(Quantities.formatSize(response.bytes.count)), \(response.source.rawValue)"
    }
}
