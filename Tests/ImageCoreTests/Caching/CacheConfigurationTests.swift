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
}
