import ImageCore

/// Runs `fetch` for every URL concurrently and writes each result in input
/// order: bytes, pixels, metadata or a path, to stdout or files.
struct FetchOutput {
    let command: IMGCacheCommand.Fetch
    let manager: ImageManager
    let progress: ProgressBar?

    /// Fetches everything; returns the kinds of the failures.
    func fetchAll() async -> [ImageCoreError.Kind] {
        var failures: [ImageCoreError.Kind] = []
        let transfers = TransferProgress(count: command.urls.count, bar: progress)
        defer { progress?.finish() }
        await withTaskGroup(of: (Int, Result<ImageResponse, ImageCoreError>, Double).self) { group in
            for (index, url) in command.urls.enumerated() {
                var request = command.download.request(for: url)
                request.decodesPixels = command.needsPixels && !streamsPixels
                request.frame = command.frame
                request.scale = command.scaleTarget
                request.encoding = command.encoding
                request.quality = command.quality
                request.variantName = command.variantName
                if progress != nil {
                    request.download.onProgress = { received, expected in
                        transfers.update(index, received: received, expected: expected)
                    }
                }
                group.addTask {
                    let (outcome, duration) = await timedLoad(manager, request)
                    return (index, outcome, duration)
                }
            }
            // Results arrive in completion order; hold them until every
            // earlier URL has been written.
            var pending: [Int: (Result<ImageResponse, ImageCoreError>, Double)] = [:]
            var next = 0
            for await (index, outcome, duration) in group {
                pending[index] = (outcome, duration)
                transfers.finish(index)
                while let (outcome, duration) = pending.removeValue(forKey: next) {
                    if let failure = emit(index: next, outcome: outcome, durationMs: duration) {
                        failures.append(failure)
                    }
                    next += 1
                }
            }
        }
        return failures
    }

    /// Writes one result; returns the failure kind if it failed.
    private func emit(index: Int, outcome: Result<ImageResponse, ImageCoreError>, durationMs: Double) -> ImageCoreError.Kind? {
        let url = command.urls[index]
        var outcome = outcome
        if case .success(let response) = outcome, !command.global.json {
            do {
                try write(response, index: index)
            } catch {
                outcome = .failure(coreError(error))
            }
        }
        if command.global.json {
            let record = JSONRecord.result(url: url, key: manager.key(for: url), outcome: outcome, durationMs: durationMs)
            StandardStreams.print(record.text, above: progress)
        }
        if case .success(let response) = outcome, response.source == .downloaded, let unstored = manager.readOnlyReason {
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
            return try writeStreamed(response, as: format.pixelFormat, index: index)
        }
        let bytes: [UInt8]
        let fileExtension: String
        if let format = command.decode, let image = response.image {
            bytes = try encode(image, as: format.pixelFormat)
            fileExtension = format.rawValue
        } else if let encoded = response.encoded {
            bytes = encoded.bytes
            fileExtension = encoded.format.fileExtension
        } else {
            bytes = response.bytes
            fileExtension = response.info.format.fileExtension
        }
        if let file = command.output.isEmpty ? nil : command.output[index] {
            try OutputFile.write(bytes, to: Environment.absolutePath(file))
        } else if let directory = command.outputDir {
            try OutputFile.write(bytes, to: Environment.absolutePath(OutputFile.path("\(response.key.hash).\(fileExtension)", in: directory)))
        } else if StandardStreams.isTerminal(1) {
            StandardStreams.print(summary(response) + " (not written to a terminal: use -o FILE or redirect stdout)", above: progress)
        } else if !StandardStreams.write(bytes) {
            throw ImageCoreError(.failure, "cannot write to stdout")
        }
    }

    /// Whether `--decode ppm|pam` pixels go straight from the decoder to the
    /// output, row by row, with no decoded image kept: full size, every frame.
    private var streamsPixels: Bool {
        guard let decode = command.decode, decode != .png, !command.global.json else { return false }
        return command.scaleTarget == nil && command.encoding == nil && command.frame == nil
    }

    /// Decodes `response` into the output as it goes (see `streamsPixels`);
    /// the same destinations as `write`.
    private func writeStreamed(_ response: ImageResponse, as format: PixelOutputFormat, index: Int) throws {
        let decode = { (output: @escaping OutputFile.Writer) throws in
            var writer = NetpbmRowWriter(format: format, output: output)
            try manager.decodePixels(of: response, channels: writer.channels, into: &writer)
        }
        if let file = command.output.isEmpty ? nil : command.output[index] {
            try OutputFile.write(to: Environment.absolutePath(file), producing: decode)
        } else if let directory = command.outputDir {
            let name = "\(response.key.hash).\(format.fileExtension)"
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
