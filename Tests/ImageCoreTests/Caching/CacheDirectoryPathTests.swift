import Testing

@testable import ImageCore

/// An entry's paths, made in place from their parts' bytes, are the ones the
/// layout names (`CacheDirectory`'s comment), for any root and hash.
@Suite struct CacheDirectoryPathTests {
    @Test func pathsInAShardAreTheLayoutsNames() {
        let hash = "ab12" + String(repeating: "c", count: 60)
        for root in ["/c", "/tmp/a cache/", "/tmp/dé/x"] {
            let directory = CacheDirectory(root: root)
            let entries = root.hasSuffix("/") ? "\(root.dropLast())/entries" : "\(root)/entries"
            #expect(directory.entries == entries)
            #expect(directory.shard(hash) == "\(entries)/a")
            #expect(directory.entryPath(hash) == "\(entries)/a/\(hash)")
            #expect(directory.metadataPath(hash) == "\(entries)/a/\(hash).meta")
            #expect(directory.partialPath(hash) == "\(entries)/a/\(hash).partial")
        }
    }

    /// A name that does not start with an ASCII character (no hash does) is
    /// still placed as before: its first character is its shard.
    @Test func otherNamesKeepTheirFirstCharacterAsTheShard() {
        let directory = CacheDirectory(root: "/c")
        #expect(directory.shard("") == "/c/entries/")
        #expect(directory.entryPath("éa") == "/c/entries/é/éa")
        #expect(directory.partialPath("éa") == "/c/entries/é/éa.partial")
    }
}
