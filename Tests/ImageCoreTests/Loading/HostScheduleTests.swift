import Testing

@testable import ImageCore

/// The unit `--rate` and Retry-After pauses apply to: "host[:port]",
/// lower-cased, without user info, read from the URL's bytes.
@Suite struct HostScheduleTests {
    @Test func aURLsHostIsItsAuthorityLowerCasedWithoutUserInfo() {
        let cases: [(url: String, host: String)] = [
            ("https://a.example/c.png", "a.example"),
            ("http://User:Secret@Example.COM:8080/path?x#y", "example.com:8080"),
            ("http://h?q=1", "h"),
            ("http://u@h#frag", "h"),
            ("http://127.0.0.1:18461/img/1.png", "127.0.0.1:18461"),
            ("http://[::1]:80/", "[::1]:80"),
            ("https://ÉCOLE.example/x", "école.example"),
            ("http://an@other@host/", "host"),
            ("no-scheme/x", "no-scheme"),
            ("s3://Bucket/key", "bucket"),
        ]
        for (url, host) in cases {
            #expect(HostSchedule.host(of: url) == host, "\(url)")
        }
    }
}
