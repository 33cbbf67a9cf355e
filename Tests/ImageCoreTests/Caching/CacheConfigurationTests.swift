import Testing

@testable import ImageCore

@Suite struct CacheConfigurationTests {
    @Test func readsEverySetting() throws {
        let text = """
            # shared by every process
            max-age = 3d
            max-size = 500M   # trimmed after each store
            failed-ttl = 2h
            memory-limit = 64M
            """
        let configuration = try CacheConfiguration(parsing: text, source: "imgcache.conf")
        #expect(configuration.maxAge == 3 * 86400)
        #expect(configuration.maxSize == 500 << 20)
        #expect(configuration.failedTTL == 7200)
        #expect(configuration.memoryLimit == 64 << 20)
    }

    @Test func rejectsBadValuesAndWarnsOfUnknownKeysWithTheLineNumber() throws {
        // A newer imgcache may have written a setting this one does not know.
        let unknown = try CacheConfiguration(parsing: "max-age = 1d\nmax-sise = 5M\n", source: "imgcache.conf")
        #expect(unknown.maxAge == 86400)
        #expect(unknown.warnings == ["imgcache.conf:2: unknown setting 'max-sise', ignored"])
        #expect(throws: ImageCoreError(.usage, "imgcache.conf:1: bad duration '7 days'")) {
            try CacheConfiguration(parsing: "max-age = 7 days", source: "imgcache.conf")
        }
    }

    @Test func readsTheDownloadSettings() throws {
        let text = """
            timeout = 30
            connect-timeout = 5s
            max-time = 2m
            limit-rate = 500K
            max-per-host = 2
            rate = 30/m
            """
        let configuration = try CacheConfiguration(parsing: text, source: "imgcache.conf")
        #expect(configuration.timeout == 30)
        #expect(configuration.connectTimeout == 5)
        #expect(configuration.maxTime == 120)
        #expect(configuration.limitRate == 500 << 10)
        #expect(configuration.maxPerHost == 2)
        #expect(configuration.rate == RequestRate(count: 30, period: 60))
        #expect(CacheConfiguration().timeout == nil && CacheConfiguration().rate == nil)
        #expect(throws: ImageCoreError(.usage, "imgcache.conf:1: bad rate '4 per second' (N/s or N/m)")) {
            try CacheConfiguration(parsing: "rate = 4 per second", source: "imgcache.conf")
        }
        #expect(throws: ImageCoreError(.usage, "imgcache.conf:1: bad duration '0'")) {
            try CacheConfiguration(parsing: "timeout = 0", source: "imgcache.conf")
        }
    }

    @Test func parsesRequestRates() {
        #expect(RequestRate(parsing: "4/s") == RequestRate(count: 4, period: 1))
        #expect(RequestRate(parsing: "30/m")?.interval == 2)
        #expect(RequestRate(parsing: "0/s") == nil)
        #expect(RequestRate(parsing: "4") == nil)
        #expect(RequestRate(parsing: "4/h") == nil)
    }
}
