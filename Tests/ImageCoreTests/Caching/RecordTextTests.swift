import Testing

@testable import ImageCore

/// A record's text as `CacheEntry.serialized` writes it: its lines, byte for
/// byte, and values with a newline character written without it wherever
/// the character falls (the writer tests eight bytes at a time).
@Suite struct RecordTextTests {
    func entry(url: String = "http://127.0.0.1/a.png", etag: String? = nil) -> CacheEntry {
        var info = ImageInfo(format: .gif, width: 640, height: 1_234_567)
        info.frameCount = 3
        info.loopCount = -1
        info.frameDurations = [100, 100, 40]
        return CacheEntry(
            key: url, url: url, info: info, byteCount: 35_480, checksum: String(repeating: "0f", count: 16),
            storedAt: 1_795_971_323.5, response: StoredResponse(etag: etag, freshUntil: 1_795_971_923.25),
            dataFileName: "0123abcd")
    }

    @Test func aRecordsLinesAreItsFieldsInOrder() throws {
        let bytes = entry(etag: "\"v1\"").serialized()
        let text = String(decoding: bytes, as: UTF8.self)
        let body = """
            imgcache-entry 4
            url http://127.0.0.1/a.png
            format gif
            width 640
            height 1234567
            frames 3
            loop -1
            delays 100*2,40
            bytes 35480
            xxh3 0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f
            stored 1795971323.5
            etag "v1"
            fresh-until 1795971923.25
            data 0123abcd

            """
        #expect(text.hasPrefix(body))
        #expect(Array(bytes.dropFirst(body.utf8.count)) == CacheEntry.checkLine(Array(body.utf8)))
        let read = try #require(CacheEntry(parsing: bytes))
        #expect(read.etag == "\"v1\"" && read.info.loopCount == -1 && read.expires == 1_795_971_923.25)
    }

    @Test func aNewlineCharacterIsLeftOutWhereverItFalls() throws {
        for newline in ["\n", "\r", "\u{0B}", "\u{0C}", "\r\n", "\u{85}", "\u{2028}", "\u{2029}"] {
            for position in 0..<20 {
                let before = String(repeating: "a", count: position)
                let etag = before + newline + "bcdefghijk"
                let read = try #require(CacheEntry(parsing: entry(etag: etag).serialized()))
                #expect(read.etag == before + "bcdefghijk", "\(newline.unicodeScalars.map(\.value)) at \(position)")
            }
        }
        // Other characters, ASCII or not, are kept as they are.
        let kept = "W/\"é—\u{7F}\u{1F}x\u{A0}ü 0123456789abcdef\""
        #expect(CacheEntry(parsing: entry(etag: kept).serialized())?.etag == kept)
    }
}
