@testable import ImageCore

/// What one input to the text parsers exercises: the size, count and
/// duration notations of the command line and `imgcache.conf`, the config
/// file itself, `--thumbnail WxH`, cache-key normalisation of a URL,
/// Cache-Control, HTTP dates and the freshness computation over them.
public enum ArgumentInputs {
    /// Feeds the input, as UTF-8 text, to every parser. Traps if a parser
    /// crashes, throws anything but an `ImageCoreError`, breaks a bound it
    /// promises, or an HTTP date does not survive being formatted and parsed.
    public static func exercise(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let size = Quantities.parseSize(text) {
            precondition(size >= 0, "negative size")
            _ = Quantities.formatSize(size)
        }
        if let count = Quantities.parseCount(text) { precondition(count >= 0, "negative count") }
        if let seconds = Quantities.parseDuration(text) {
            precondition(seconds >= 0, "negative duration")
            // As `imgcache stat` prints a configured max-age.
            _ = Quantities.formatDuration(seconds)
        }
        do {
            _ = try CacheConfiguration(parsing: text, source: "fuzz")
        } catch is ImageCoreError {
            // A malformed setting, cleanly rejected.
        } catch {
            preconditionFailure("not an ImageCoreError: \(error)")
        }
        if let thumbnail = ScaleTarget(thumbnail: text) {
            for (width, height) in [(1, 1), (4000, 3000), (3000, 4000), (65535, 1)] {
                let size = thumbnail.size(width: width, height: height)
                precondition(size.width >= 1 && size.height >= 1 && size.width <= width && size.height <= height,
                             "thumbnail \(text) of \(width)×\(height) is \(size)")
            }
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let parameters = lines.dropFirst().prefix(3).map { String($0.prefix(8)) }
        for policy in [CacheKeyPolicy.exactURL, CacheKeyPolicy(ignoresQuery: true),
                       CacheKeyPolicy(strippedParameters: parameters)] {
            let key = policy.key(for: lines[0])
            precondition(!key.string.contains("#") && key.hash.count == 64, "bad key \(key)")
        }
        _ = CacheControl(text)
        if let date = HTTPDate.parse(text) {
            precondition(HTTPDate.parse(HTTPDate.format(date)) == date, "HTTPDate.format(\(date)) does not parse back")
            _ = HTTPDate.iso8601(date)
        }
        // Header lines "name: value", as the downloader lowercases them.
        var headers = ResponseHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), let name = ResponseHeaders.Name(String(line[..<colon])) else {
                continue
            }
            headers[name] = String(line[line.index(after: colon)...].trimmingSpaces())
        }
        if let deadline = StoredResponse.freshUntil(headers: headers, requestTime: 1_700_000_000,
                                                    responseTime: 1_700_000_001) {
            // Stored in the entry's record; `imgcache stat` prints it.
            _ = HTTPDate.iso8601(deadline)
        }
    }
}
