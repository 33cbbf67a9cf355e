import ArgumentParser
import ImageCore

/// How URLs map to cache keys; every subcommand that names URLs takes these,
/// so `stat` and `purge` find what `fetch` stored.
struct KeyOptions: ParsableArguments {
    @Flag(help: "Cache key without the query string.")
    var keyIgnoreQuery = false

    @Option(help: ArgumentHelp("Cache key without this query parameter (repeatable).", valueName: "name"))
    var keyStripParam: [String] = []

    /// The policy these options ask for.
    var policy: CacheKeyPolicy {
        CacheKeyPolicy(ignoresQuery: keyIgnoreQuery, strippedParameters: keyStripParam)
    }
}
