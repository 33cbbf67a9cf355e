import Testing

@testable import ImageCore

/// Cache-Control directives, parsed from the bytes.
struct CacheControlTests {
    @Test func readsTheDirectivesACacheActsOn() {
        let parsed = CacheControl(
            "max-age=60, no-cache, no-store, must-revalidate, immutable, stale-while-revalidate=30, stale-if-error=600")
        #expect(parsed.maxAge == 60)
        #expect(parsed.noCache && parsed.noStore && parsed.mustRevalidate && parsed.immutable)
        #expect(parsed.staleWhileRevalidate == 30)
        #expect(parsed.staleIfError == 600)
        #expect(CacheControl("proxy-revalidate").mustRevalidate)
    }

    @Test func namesIgnoreCaseAndSpacesAndTabsAroundThem() {
        let parsed = CacheControl("\tMAX-AGE = \"120\" ,No-Store\t")
        #expect(parsed.maxAge == 120)
        #expect(parsed.noStore)
        #expect(!parsed.noCache)
    }

    @Test func theFirstMaxAgeWinsAndNegativeSecondsAreZero() {
        #expect(CacheControl("max-age=10, max-age=20").maxAge == 10)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("stale-if-error=1.5").staleIfError == 1.5)
    }

    @Test func malformedPartsAreIgnored() {
        #expect(CacheControl(nil) == CacheControl(""))
        #expect(CacheControl("=, ,,=5, max-age") == CacheControl(""))
        #expect(CacheControl("max-age=soon").maxAge == nil)
        #expect(CacheControl("private, max-age=5, x-unknown=1").maxAge == 5)
        #expect(CacheControl("max-agex=5, no-cachex").maxAge == nil)
        #expect(!CacheControl("no-cachex").noCache)
        // A name is ASCII: no Unicode case folding makes another one match.
        #expect(!CacheControl("İmmutable").immutable)
    }
}
