/// The header fields of the response being received, as libcurl hands over
/// its lines, and what an error status makes of them (Retry-After).
struct ResponseHead {
    /// Field names in lower case; repeated fields joined with ", ".
    private(set) var headers: [String: String] = [:]

    /// Takes one header line. A status line starts a new response (after a
    /// redirect or a 100 Continue), so earlier headers are dropped.
    mutating func receive(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let header = HTTPHeader(parsing: text) else { return }
        let name = header.name.lowercased()
        if let existing = headers[name] {
            headers[name] = existing + ", " + header.value
        } else {
            headers[name] = header.value
        }
    }

    /// An error status, with the server's Retry-After (seconds or a date).
    func httpError(_ status: Int) -> ImageCoreError {
        var error = ImageCoreError.httpStatus(status)
        if let value = headers["retry-after"] {
            let trimmed = value.trimmingSpaces()
            error.retryAfter = Double(trimmed) ?? HTTPDate.parse(String(trimmed)).map { max(0, $0 - WallClock.now()) }
        }
        return error
    }
}
