import Foundation
import Testing

@testable import ImageCore

/// Header lines as libcurl hands them over: bytes, each ending in CRLF.
struct ResponseHeadTests {
    private func head(_ lines: [String]) -> ResponseHead {
        var head = ResponseHead()
        for line in lines {
            Array(line.utf8).withUnsafeBytes { head.receive($0) }
        }
        return head
    }

    @Test func namesAreLowercasedAndValuesTrimmed() {
        let head = head(["HTTP/1.1 200 OK\r\n", "Content-Type: \t image/png \r\n", "ETag:\"abc\"\r\n", "\r\n"])
        #expect(head.headers == ["content-type": "image/png", "etag": "\"abc\""])
    }

    @Test func repeatedFieldsAreJoined() {
        let head = head(["Cache-Control: max-age=60\r\n", "cache-control: public\r\n"])
        #expect(head.headers["cache-control"] == "max-age=60, public")
    }

    @Test func aStatusLineStartsANewResponse() {
        let head = head([
            "HTTP/1.1 301 Moved\r\n", "ETag: \"old\"\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "Age: 5\r\n",
        ])
        #expect(head.headers == ["age": "5"])
    }

    @Test func malformedLinesAreIgnored() {
        let head = head(["no colon here\r\n", "E Tag: x\r\n", ": no name\r\n", "Vary:\r\n"])
        #expect(head.headers == ["vary": ""])
    }

    /// Only the fields something reads are kept: each of them, in any case, and nothing else.
    @Test func onlyTheFieldsReadAreKept() {
        let kept = ResponseHead.keptNames.map(\.text.description)
        let head = head(
            ["HTTP/1.1 200 OK\r\n", "Server: nginx\r\n", "Content-Length: 5\r\n", "X-Etag: no\r\n", "Etags: no\r\n"]
                + kept.map { "\($0.uppercased()): \($0)\r\n" })
        #expect(head.headers == ResponseHeaders(Dictionary(uniqueKeysWithValues: kept.map { ($0, $0) })))
    }

    /// S3's 301 for a bucket in another region names it in a header only
    /// (its `PermanentRedirect` document has no `<Region>`): `httpError`
    /// reads it, so it must be kept.
    @Test func anS3RedirectKeepsTheBucketsRegion() {
        let head = head(["HTTP/1.1 301 Moved Permanently\r\n", "x-amz-bucket-region: eu-west-1\r\n", "\r\n"])
        #expect(head.headers["x-amz-bucket-region"] == "eu-west-1")
        #expect(head.httpError(301).message.contains("the bucket is in eu-west-1"))
    }

    @Test func nonASCIIValuesKeepTheirBytes() {
        let head = head(["ETag: caf\u{e9} \u{a0}\r\n"])
        #expect(head.headers["etag"] == "caf\u{e9} \u{a0}")
    }
}

struct ByteSearchTests {
    @Test func findsTheFirstByteAtOrAfterAnIndex() {
        let bytes: [UInt8] = [1, 0xFF, 2, 0xFF, 3]
        #expect(bytes.firstIndex(of: 0xFF, from: 0) == 1)
        #expect(bytes.firstIndex(of: 0xFF, from: 2) == 3)
        #expect(bytes.firstIndex(of: 0xFF, from: 4) == nil)
        #expect(bytes.firstIndex(of: 0xFF, from: 5) == nil)
        #expect(bytes.firstIndex(of: 0xFF, from: 99) == nil)
        #expect([UInt8]().firstIndex(of: 0, from: 0) == nil)
    }

    @Test func findsTheFirstByteOfAString() {
        let long = "https://example.com/caf\u{e9}/a.png?x=1#top?"
        #expect(long.utf8Index(of: UInt8(ascii: "?")).map { long[..<$0] } == "https://example.com/caf\u{e9}/a.png")
        #expect(long.utf8Index(of: UInt8(ascii: "#")).map { long[$0...] } == "#top?")
        #expect(long.utf8Index(of: UInt8(ascii: "!")) == nil)
        let small = "a?b"
        #expect(small.utf8Index(of: UInt8(ascii: "?")).map { small[..<$0] } == "a")
        #expect("".utf8Index(of: 0) == nil)
    }

    /// A field is read by its case of `ResponseHeaders.Name` (so a field
    /// read is one kept, or the reader does not compile); each case is
    /// found by its name in any case, and a name not kept by none.
    @Test func everyKeptFieldIsFoundByItsName() {
        for name in ResponseHeaders.Name.allCases {
            #expect(ResponseHeaders.Name(name.text.description) == name)
            #expect(ResponseHeaders.Name(name.text.description.uppercased()) == name)
            let headers: ResponseHeaders = [name.text.description: "v"]
            #expect(headers[name] == "v" && headers.fields.count == 1)
        }
        #expect(ResponseHeaders.Name("server") == nil && ResponseHeaders.Name("etags") == nil)
        #expect(ResponseHeaders(["Server": "nginx"]).isEmpty)
    }
}
