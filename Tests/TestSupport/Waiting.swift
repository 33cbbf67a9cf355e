import Foundation

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns
/// whether it held. For a test that must wait for a state it checks instead
/// of assuming when it arrives: under a sanitizer or a loaded machine the
/// same step can take ten times as long.
package func waitUntil(seconds: Double = waitPatience, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

/// How long `waitUntil` waits by default: 30 s, and 5 min under a sanitizer,
/// where the suites beside a test can starve its tasks for longer (an ASan
/// run on a loaded machine waited over 30 s for three queued transfers).
/// A wait that holds returns at once, so patience costs a passing run nothing.
package var waitPatience: Double {
    ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] == nil ? 30 : 300
}

/// Whether a test checks an upper bound on how long something took: not
/// under a sanitizer (`make sanitize` sets `IMGCACHE_TEST_SANITIZER` to
/// `address` or `thread`), whose runs are many times slower (a CI-like TSan
/// run waited 39 s for a 1.5 s lease, an ASan one 37 s): there the state is
/// checked, not the time. `make test` keeps every bound, each leaving several
/// seconds for a loaded machine; a hang it catches is longer.
package var upperTimeBoundsHold: Bool {
    ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] == nil
}
