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
            "HTTP/1.1 301 Moved\r\n", "Location: /b\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n",
        ])
        #expect(head.headers == ["content-length": "5"])
    }

    @Test func malformedLinesAreIgnored() {
        let head = head(["no colon here\r\n", "Bad Name: x\r\n", ": no name\r\n", "Empty:\r\n"])
        #expect(head.headers == ["empty": ""])
    }

    @Test func nonASCIIValuesKeepTheirBytes() {
        let head = head(["X-Name: caf\u{e9} \u{a0}\r\n"])
        #expect(head.headers["x-name"] == "caf\u{e9} \u{a0}")
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
}
