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

    /// Each option `fetch`'s plan reads, as the warm hit decides it: taken
    /// (it cannot change a fresh hit's answer) or left to the full path. An
    /// option added to `FetchPlan.options` fails here until it is put in one
    /// list, so a warm hit never ignores an option it should have obeyed.
    @Test func everyOptionThePlanReadsIsDecided() throws {
        let taken: [String: [String]] = [
            "--cache-dir": ["/c"], "-q": [], "-v": [], "--no-progress": [], "--no-remote-storage": [],
            "--offline": [], "-o": ["x"], "--path": [], "--stale-if-error": [], "-k": [], "--retries": ["2"],
            "--timeout": ["3"], "--connect-timeout": ["3"], "--max-time": ["3"],
        ]
        let leftToTheFullPath: [String: [String]] = [
            "--json": [], "--progress": [], "--placeholder": ["--json"], "--no-store": [], "--output-dir": ["d"],
            "--decode": ["ppm"], "--frame": ["0", "--decode", "ppm"], "--thumbnail": ["8x8"],
            "--max-pixels": ["100"], "--encode": ["png"], "--quality": ["80", "--encode", "jpeg"],
            "--colorspace": ["srgb", "--decode", "ppm"], "--no-orient": ["--decode", "ppm"],
        ]
        for option in FetchPlan.options {
            let name = option.names[0]
            let decided = taken[name].map { (true, $0) } ?? leftToTheFullPath[name].map { (false, $0) }
            let (isTaken, rest) = try #require(decided, "\(name): taken by a warm hit, or left to the full path?")
            let arguments = ["fetch", name] + rest + [url]
            #expect(FetchPlan(arguments: arguments) != nil, "\(arguments): not a line the plan reads")
            #expect((WarmHitPlan(arguments: arguments) != nil) == isTaken, "\(arguments)")
        }
    }
}
