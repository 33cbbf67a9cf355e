import Foundation
import Testing

@testable import imgcache

/// Which command lines the warm-hit path takes; everything else goes to the
/// full parser (and its usage errors).
@Suite struct WarmHitPlanTests {
    let url = "http://127.0.0.1:9/a.png"

    @Test func plainHitsAreTaken() throws {
        let plain = try #require(WarmHitPlan(arguments: ["fetch", url]))
        #expect(plain.url == url && plain.output == nil && plain.cacheDirectory == nil && !plain.verbose)
        let full = try #require(
            WarmHitPlan(arguments: ["--cache-dir", "/c", "-v", "fetch", "--no-progress", "-oout", url]))
        #expect(
            full.url == url && full.output == "out" && full.cacheDirectory == "/c" && full.verbose && full.noProgress)
        #expect(WarmHitPlan(arguments: ["fetch", "--cache-dir=/c", "--output", "-", "-q", url])?.output == "-")
        #expect(WarmHitPlan(arguments: ["fetch", "--quiet", url])?.quiet == true)
        // Flags that cannot change a fresh hit's answer (man page: --offline
        // serves what is cached; a disk hit asks no remote store).
        let offline = try #require(
            WarmHitPlan(arguments: ["fetch", "--offline", "--no-remote-storage", "-o", "x", url]))
        #expect(offline.offline && offline.request.network == .offline)
        #expect(WarmHitPlan(arguments: ["fetch", url])?.request.network == .allowed)
        #expect(WarmHitPlan(arguments: ["fetch", "--path", "-q", url])?.path == true)
        let patient = try #require(
            WarmHitPlan(arguments: ["fetch", "--retries", "5", "--timeout", "30", "--stale-if-error", "-k", url]))
        #expect(patient.request.retries == 5 && patient.request.download.timeout == 30)
    }

    @Test func everythingElseIsLeftToTheParser() {
        let refused: [[String]] = [
            [], ["fetch"], ["stat", url], ["help", "fetch"], ["fetch", url, url], ["fetch", "ftp://x/a.png"],
            ["fetch", "--json", url], ["fetch", "--path", "--no-store", url], ["fetch", "--progress", url],
            ["fetch", "-qv", url],
            ["fetch", "-q", "-v", url], ["fetch", "-v", "-v", url], ["fetch", "-o", "a", "-o", "b", url],
            ["fetch", "--max-redirects", "2", url], ["fetch", "--offline", "--refresh", url], ["fetch", "-o"],
            ["fetch", "--no-store", url], ["fetch", "--thumbnail", "8x8", url], ["fetch", "--encode", "png", url],
            ["fetch", "--output-dir", "d", url], ["fetch", "--placeholder", "--json", url],
            ["fetch", "--cache-dir", "", url],
            ["fetch", "--", url], ["fetch", "--decode", "ppm", url],
            ["fetch", "-H", "Accept: image/*", url], ["-q", "stat"], ["fetch", "--cache-dir", "-q", url],
        ]
        for arguments in refused { #expect(WarmHitPlan(arguments: arguments) == nil, "\(arguments)") }
    }
}
