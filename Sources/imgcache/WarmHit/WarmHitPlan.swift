import ImageCore

/// The command lines `WarmHit` answers by itself: a `FetchPlan` (the line
/// read without swift-argument-parser, and checked as the parser checks it)
/// of one http(s) URL written as it is or named (`--path`), with nothing else but `-o FILE`,
/// `--cache-dir DIR`, `-q`, `-v`, `--no-progress`, and the flags that cannot
/// change a fresh hit's answer: `--offline` (the request is its, so an
/// entry it serves stale is served here too), `--no-remote-storage` (a disk
/// hit asks no remote store), and those that shape only a transfer or the
/// answer to an origin's failure, `--retries`, `--timeout`,
/// `--connect-timeout`, `--max-time`, `-k` and `--stale-if-error` (man
/// page: each applies to a download; a stale entry without `--offline` is
/// not a hit and takes the full path). Anything else,
/// including every usage error, is nil and left to the full path.
struct WarmHitPlan: Equatable {
    /// The line, as `fetch` reads it.
    let fetch: FetchPlan

    init?(arguments: [String]) {
        guard let fetch = FetchPlan(arguments: arguments), fetch.urls.count == 1, fetch.progress != true,
            !fetch.json, !fetch.noStore, !fetch.placeholder, fetch.outputDir == nil,
            fetch.rendition == ImageRendition()
        else { return nil }
        self.fetch = fetch
    }

    var url: String { fetch.urls[0] }
    var output: String? { fetch.output.first }
    var cacheDirectory: String? { fetch.cacheDirectory }
    var quiet: Bool { fetch.quiet }
    var verbose: Bool { fetch.verbose }
    var noProgress: Bool { fetch.progress == false }
    var offline: Bool { fetch.offline }
    /// `--path`: the entry's file is printed instead of its bytes.
    var path: Bool { fetch.path }

    /// The request the full path makes of the line (`FetchPlan.request`).
    var request: ImageRequest { fetch.request(for: url, download: nil) }
}
