/// The header fields of the response being received, as libcurl hands over
/// its lines, and what an error status makes of them (Retry-After). Only the
/// fields imgcache reads are kept (`ResponseHeaders.Name`): an image server's response
/// has 8 to 12, half of them (Server, Content-Length, Connection,
/// Accept-Ranges…) of no use to the entry, the policy or a resume.
struct ResponseHead {
    /// The fields of `ResponseHeaders.Name`; repeated fields joined with ", ".
    private(set) var headers = ResponseHeaders()
    /// The kept fields, in a stored array (`allCases` is computed).
    static let keptNames = ResponseHeaders.Name.allCases

    /// Takes one header line. A status line starts a new response (after a
    /// redirect or a 100 Continue), so earlier headers are dropped. Parsed as
    /// bytes: every line ends in CRLF, which sent `String`'s trimming to its
    /// Unicode tables, a twentieth of a cold download's CPU time.
    mutating func receive(_ line: UnsafeRawBufferPointer) {
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
            line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/")
        {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Self.trimmed(line[..<colon])
        // Named by comparing the line's bytes with the kept names: a field
        // not kept costs this comparison and nothing else (no string; 14.4 k
        // instructions a URL kept every field).
        guard let key = Self.keptName(name) else { return }
        let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
        Self.join(&headers[key], value)
    }

    /// The kept field that `name` is, in any case; nil for any other.
    private static func keptName(_ name: Slice<UnsafeRawBufferPointer>) -> ResponseHeaders.Name? {
        let count = name.count
        for kept in keptNames {
            // Taken once a name: `text` is a switch.
            let text = kept.text
            guard text.utf8CodeUnitCount == count else { continue }
            var index = name.startIndex
            var matches = true
            for offset in 0..<count {
                let byte = name[index]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != text.utf8Start[offset] {
                    matches = false
                    break
                }
                index += 1
            }
            if matches { return kept }
        }
        return nil
    }

    /// A repeated field's values joined with ", " (RFC 9110, 5.3).
    private static func join(_ field: inout String?, _ value: String) {
        if let existing = field {
            field = existing + ", " + value
        } else {
            field = value
        }
    }

    /// `bytes` without the spaces, tabs, CRs and LFs around them.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }

    /// Whether an error response's body is worth reading: an S3 error
    /// document (`application/xml`) names the cause, which the status alone
    /// does not (`AccessDenied`, `NoSuchBucket`, `SignatureDoesNotMatch`).
    var hasErrorDocument: Bool {
        headers[.contentType].map { $0.contains("xml") } ?? false
    }

    /// The largest error document read.
    static let errorDocumentLimit = 4096

    /// Whether a final status is an error: 4xx and 5xx, and a redirect
    /// libcurl did not follow (a 3xx other than 304 without a `Location`, as
    /// S3's 301 `PermanentRedirect` for a bucket in another region is): its
    /// body is no image and no entry, and was taken for one (exit 5, "not a
    /// supported image (XML/SVG)"; a store "uploaded" to nothing).
    static func isErrorStatus(_ status: Int) -> Bool {
        status >= 400 || ((300..<400).contains(status) && status != 304)
    }

    /// An error status, with the server's Retry-After (seconds or a date),
    /// the `<Code>` of its error document, if any, and for S3 the region
    /// the bucket is in (`x-amz-bucket-region`, or the document's
    /// `<Region>`) when the request went to another.
    func httpError(_ status: Int, document: [UInt8] = []) -> ImageCoreError {
        var error = ImageCoreError.httpStatus(status, serviceCode: Self.serviceCode(in: document))
        if status == 301 || status == 400,
            let region = headers[.amzBucketRegion].flatMap({ Self.plainWord(Array($0.utf8)) })
                ?? Self.element("Region", in: document)
        {
            error = error.noting("the bucket is in \(region): name that region with |region= or AWS_REGION")
        }
        if let value = headers[.retryAfter] {
            let trimmed = value.trimmingSpaces()
            error.retryAfter = Double(trimmed) ?? HTTPDate.parse(String(trimmed)).map { max(0, $0 - WallClock.now()) }
        }
        return error
    }

    /// The first `<Code>…</Code>` of an S3 error document, if it is a
    /// plain word (nothing a server could use to forge a message with).
    static func serviceCode(in document: [UInt8]) -> String? {
        element("Code", in: document)
    }

    /// The first `<name>…</name>` of an S3 error document, if it is a plain
    /// word (`plainWord`).
    static func element(_ name: String, in document: [UInt8]) -> String? {
        let (open, close) = (Array("<\(name)>".utf8), Array("</\(name)>".utf8))
        guard let start = document.indices.first(where: { document[$0...].starts(with: open) }) else { return nil }
        let value = document[(start + open.count)...].prefix { $0 != UInt8(ascii: "<") }
        guard document[value.endIndex...].starts(with: close) else { return nil }
        return plainWord(value)
    }

    /// `bytes` as a string if they are 1 to 64 letters, digits, dots and
    /// hyphens (an S3 error code, a region): nothing a server could forge
    /// a message with.
    static func plainWord(_ bytes: some Collection<UInt8>) -> String? {
        guard (1...64).contains(bytes.count),
            bytes.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0 & 0xDF) || $0 == 0x2E || $0 == 0x2D
            })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
