import Testing

@testable import ImageCore

/// RFC 9111 freshness arithmetic and the cache's decisions, on fixed clocks.
@Suite struct FreshnessTests {
    let request = ImageRequest(url: "http://127.0.0.1/a.png")

    func entry(_ headers: [String: String], at time: Double = 1000, request: ImageRequest? = nil) -> CacheEntry {
        let response = StoredResponse(
            headers: ResponseHeaders(headers), request: (request ?? self.request).download,
            requestTime: time, responseTime: time)
        return CacheEntry(
            key: "k", url: "u", info: ImageInfo(format: .png, width: 1, height: 1), byteCount: 1,
            checksum: String(repeating: "0", count: 32), storedAt: time, response: response,
            dataFileName: "d")
    }

    @Test func maxAgeWinsOverExpiresAndCountsAge() {
        let headers: ResponseHeaders = [
            "cache-control": "public, max-age=600", "age": "100", "etag": "\"v1\"",
            "expires": "Sun, 06 Nov 1994 08:49:37 GMT",
        ]
        let stored = StoredResponse(headers: headers, request: request.download, requestTime: 1000, responseTime: 1000)
        #expect(stored.freshUntil == 1500)
        #expect(stored.etag == "\"v1\"")
    }

    @Test func expiresCountsFromDateAndInvalidMeansExpired() {
        let headers: ResponseHeaders = [
            "date": "Sun, 06 Nov 1994 08:49:37 GMT", "expires": "Sun, 06 Nov 1994 09:49:37 GMT",
        ]
        #expect(StoredResponse.freshUntil(headers: headers, requestTime: 1000, responseTime: 1000) == 4600)
        #expect(StoredResponse.freshUntil(headers: ["expires": "0"], requestTime: 5e9, responseTime: 5e9)! < 5e9)
    }

    @Test func heuristicIsATenthOfTheLastModifiedAge() {
        let headers: ResponseHeaders = ["date": HTTPDate.format(100_000), "last-modified": HTTPDate.format(90_000)]
        #expect(StoredResponse.freshUntil(headers: headers, requestTime: 100_000, responseTime: 100_000) == 101_000)
        #expect(StoredResponse.freshUntil(headers: [:], requestTime: 1, responseTime: 1) == nil)
    }

    @Test func transitTimeAndClockSkewAreCountedAsAge() {
        // The server's clock is 50 s behind and the response took 2 s: age 50.
        let headers: ResponseHeaders = ["date": HTTPDate.format(950), "cache-control": "max-age=100"]
        #expect(StoredResponse.freshUntil(headers: headers, requestTime: 998, responseTime: 1000) == 1050)
    }

    @Test func freshEntriesAreServedAndStaleOnesRevalidated() {
        let fresh = entry(["cache-control": "max-age=60"])
        #expect(CachePolicy.decide(fresh, for: request, now: 1059) == .serve)
        #expect(CachePolicy.decide(fresh, for: request, now: 1060) == .revalidate)
        #expect(CachePolicy.decide(entry([:]), for: request, now: 1000) == .revalidate)
        #expect(
            CachePolicy.decide(entry(["cache-control": "max-age=60, no-cache"]), for: request, now: 1001) == .revalidate
        )
    }

    @Test func refreshRevalidatesUnlessImmutable() {
        var refresh = request
        refresh.refresh = true
        #expect(CachePolicy.decide(entry(["cache-control": "max-age=60"]), for: refresh, now: 1001) == .revalidate)
        #expect(
            CachePolicy.decide(entry(["cache-control": "max-age=60, immutable"]), for: refresh, now: 1001) == .serve)
    }

    @Test func offlineServesStaleUnlessTheServerForbids() {
        var offline = request
        offline.network = .offline
        #expect(CachePolicy.decide(entry(["cache-control": "max-age=1"]), for: offline, now: 9999) == .serve)
        if case .refuse = CachePolicy.decide(
            entry(["cache-control": "max-age=1, must-revalidate"]), for: offline, now: 9999)
        {
        } else {
            Issue.record("must-revalidate served stale offline")
        }
        #expect(
            CachePolicy.decide(entry(["cache-control": "max-age=1, must-revalidate"]), for: offline, now: 1000.5)
                == .serve)
    }

    @Test func staleWindowsFromTheResponse() {
        let swr = entry(["cache-control": "max-age=10, stale-while-revalidate=20"])
        #expect(CachePolicy.decide(swr, for: request, now: 1025) == .serveThenRevalidate)
        #expect(CachePolicy.decide(swr, for: request, now: 1031) == .revalidate)
        let sie = entry(["cache-control": "max-age=10, stale-if-error=20"])
        #expect(CachePolicy.servesStaleOnError(sie, for: request, now: 1025))
        #expect(!CachePolicy.servesStaleOnError(sie, for: request, now: 1031))
        var flag = request
        flag.staleIfError = true
        #expect(CachePolicy.servesStaleOnError(sie, for: flag, now: 99999))
        #expect(
            !CachePolicy.servesStaleOnError(
                entry(["cache-control": "max-age=1, must-revalidate"]), for: flag, now: 5000))
    }

    @Test func varyMatchesOnlyTheSameRequestHeaders() {
        var english = request
        english.download.headers = [HTTPHeader(name: "Accept-Language", value: "en")]
        var french = request
        french.download.headers = [HTTPHeader(name: "accept-language", value: "fr")]
        let stored = entry(["cache-control": "max-age=60", "vary": "Accept-Language, Accept"], request: english)
        #expect(CachePolicy.decide(stored, for: english, now: 1001) == .serve)
        #expect(CachePolicy.decide(stored, for: french, now: 1001) == .mismatch)
        #expect(
            CachePolicy.decide(entry(["cache-control": "max-age=60", "vary": "*"]), for: request, now: 1001)
                == .mismatch)
    }

    @Test func notModifiedUpdatesHeadersAndRestartsTheClock() {
        let stored = entry(["cache-control": "max-age=60", "etag": "\"a\"", "last-modified": HTTPDate.format(500)])
        let updated = stored.response.updated(
            by: ["cache-control": "max-age=120"], request: request.download,
            requestTime: 5000, responseTime: 5000)
        #expect(updated.freshUntil == 5120)
        #expect(updated.etag == "\"a\"" && updated.lastModified == HTTPDate.format(500))
    }

    @Test func recordsRoundTripEveryHTTPFieldAndVariant() throws {
        var stored = entry([
            "cache-control": "max-age=60, stale-if-error=5", "etag": "W/\"x\"", "vary": "Accept",
            "last-modified": HTTPDate.format(500),
        ])
        stored.lastUsed = 0
        stored.variants = [
            CacheEntry.Variant(
                transform: "thumbnail=8x8,encode=png", fileName: "h.vabc.png", byteCount: 9,
                checksum: String(repeating: "a", count: 32))
        ]
        let parsed = try #require(CacheEntry(parsing: stored.serialized()))
        #expect(parsed == stored)
    }

    /// Format 4, byte for byte: a record read and written again is the same
    /// text (every field, a variant, a key other than the URL, the seal).
    @Test func recordsAreWrittenByteForByteAsRead() throws {
        let body = """
            imgcache-entry 4
            key https://example.com/a.jpg#key
            url https://example.com/a.jpg
            format jpeg
            width 16
            height 8
            frames 1
            orientation 6
            bytes 715
            xxh3 abababababababababababababababab
            stored 1763800000.5
            etag "v1"
            last-modified Sun, 06 Nov 1994 08:49:37 GMT
            cache-control max-age=60
            fresh-until 1763800060.5
            vary Accept
            vary-key 0123456789abcdef
            data cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd.jpg
            variant efefefefefefefefefefefefefefefefefefefefefefefefefefefefefefefef.jpg 300 \
            12121212121212121212121212121212 thumbnail=8x8,encode=jpeg,quality=85,orient=1

            """
        let text = Array(body.utf8) + Array("check \(CacheEntry.seal(Array(body.utf8)))\n".utf8)
        let entry = try #require(CacheEntry(parsing: text))
        #expect(entry.serialized() == text)
    }
}
