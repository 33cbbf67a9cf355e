import Testing

@testable import ImageCore

/// Which transfers wait for a multiplexed connection (`CURLOPT_PIPEWAIT`):
/// those to an `https://` URL in any case, as the string comparison decided
/// before it was made on bytes.
@Suite struct HTTPSSchemeTests {
    @Test func httpsInAnyCaseWithSomethingAfterIt() {
        for url in ["https://a", "HTTPS://example.com/x.png", "HtTpS://h/é"] {
            #expect(URLScheme.starts(url, with: "https://"), "\(url)")
        }
        for url in [
            "", "https://", "https:/a", "http://a.png", "httpsx//a", "ftp://host/x", "é://https://", "s3://b/k",
        ] {
            #expect(!URLScheme.starts(url, with: "https://"), "\(url)")
        }
    }
}
