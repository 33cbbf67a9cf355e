#if canImport(Glibc)
    import Glibc
#endif

/// Which shard of a sharded remote storage holds a key: rendezvous
/// (highest-random-weight) hashing, as ccache's `|shards=` does. Each shard
/// scores the key with a hash of its name and the key; the highest score
/// wins. Removing a shard moves only that shard's keys; adding one takes
/// about 1/n of the keys from each of the others.
///
/// The hash is XXH3 (`Digest.xxh3Word`), unseeded, so every process on
/// every machine picks the same shard for the same key. A weight scales a
/// shard's share: with the score `-weight / ln(u)`, `u` uniform in (0, 1),
/// a shard wins a key with probability `weight / sum of weights`.
enum ShardSelection {
    /// The index in `shards` of the shard for the key hash `name`.
    static func pick(_ shards: [RemoteStorageURL.Shard], for name: String) -> Int {
        guard shards.count > 1 else { return 0 }
        var best = (index: 0, score: -Double.infinity)
        for (index, shard) in shards.enumerated() {
            let score = Self.score(shard, name)
            if score > best.score { best = (index, score) }
        }
        return best.index
    }

    /// The shard's score for a key: its weight over -ln of a uniform draw
    /// taken from the hash of shard name, a NUL, and key hash.
    static func score(_ shard: RemoteStorageURL.Shard, _ name: String) -> Double {
        let word = Digest.xxh3Word(Array(shard.name.utf8) + [0] + Array(name.utf8))
        // 53 bits, offset by half a step: strictly between 0 and 1.
        let uniform = (Double(word >> 11) + 0.5) / Double(1 << 53)
        return -shard.weight / log(uniform)
    }
}
