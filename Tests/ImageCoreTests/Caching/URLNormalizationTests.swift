import Testing

@testable import ImageCore

/// Issue 26, finding 8: one URL, one entry, as WHATWG URL parsing and every
/// browser see it.
@Suite struct URLNormalizationTests {
    func key(_ url: String) -> String { CacheKeyPolicy.exactURL.key(for: url).string }

    @Test func aNormalURLIsItsOwnKey() {
        for url in [
            "http://example.com/a.jpg", "https://cdn.example.com:8443/p/a%C3%A9.jpg?w=10&h=2",
            "http://[::1]:8080/x",
        ] {
            #expect(key(url) == url)
        }
    }

    /// Session 17 review: WHATWG URL parsing removes every ASCII tab, LF and
    /// CR from its input first; imgcache percent-encoded them, so
    /// `…/h<TAB>5.jpg` was another entry than `…/h5.jpg` and requested
    /// `/h%095.jpg` (a 404), and a list line `URL<TAB># note` kept the tab.
    @Test func tabsAndNewlinesAreRemovedAsWHATWGRemovesThem() {
        #expect(key("http://example.com/h\t5.jpg") == "http://example.com/h5.jpg")
        #expect(key("http://example.com/a.jpg\t# note") == "http://example.com/a.jpg")
        #expect(key("http://exam\nple.com/a\r\n.jpg?w=1\t0") == "http://example.com/a.jpg?w=10")
        #expect(URLNormalization.requestForm("http://example.com/h\t5.jpg") == "http://example.com/h5.jpg")
        #expect(URLNormalization.requestForm("http://example.com/a b.jpg\t# x") == "http://example.com/a%20b.jpg")
    }

    /// A URL's user info is the request's credentials (`URLUserInfo`): the
    /// key, and so the entry's record, never holds a password.
    @Test func theUserInfoIsNoPartOfTheKey() {
        #expect(key("http://user:Pass@example.com/a") == "http://example.com/a")
        #expect(key("http://user@Example.com:80/a") == "http://example.com/a")
        #expect(key("http://example.com/a@2x.png") == "http://example.com/a@2x.png")
        #expect(URLUserInfo.split("http://alice%40corp:pa%3Ass@example.com/a?b@c").credentials == "alice@corp:pa:ss")
        #expect(URLUserInfo.split("http://alice%40corp:pa%3Ass@example.com/a?b@c").url == "http://example.com/a?b@c")
        #expect(URLUserInfo.split("http://example.com/a@2x.png").credentials == nil)
        #expect(URLUserInfo.shown("http://alice:s3cret@example.com/a") == "http://alice:***@example.com/a")
        #expect(URLUserInfo.shown("http://alice@example.com/a") == "http://alice@example.com/a")
    }

    /// Session 16 review: `http://127.1:8080/a`, `http://0x7f000001:8080/a`
    /// and `http://2130706433:8080/a` were three entries of one image: WHATWG
    /// reads each host as the IPv4 address 127.0.0.1, and libcurl connects to it.
    @Test func anIPv4AddressIsWrittenInDottedDecimal() {
        for url in [
            "http://127.1:8080/a", "http://0x7f000001:8080/a", "http://2130706433:8080/a", "http://0177.0.0.1:8080/a",
            "http://0x7F.0.0.1:8080/a", "http://127.0.0.1.:8080/a", "http://127.0.1:8080/a",
            "http://127.0x0.0x0.1:8080/a",
        ] {
            #expect(key(url) == "http://127.0.0.1:8080/a", "\(url)")
        }
        for url in ["http://1.2.3.4/a", "http://0.0.0.0/a", "http://255.255.255.255:8/a", "http://10.0.100.1/a"] {
            #expect(key(url) == url, "\(url)")
        }
        #expect(key("http://010.0.0.1/a") == "http://8.0.0.1/a")
        #expect(key("http://1.2.3.04/a") == "http://1.2.3.4/a")
        #expect(key("http://0x/a") == "http://0.0.0.0/a")
        #expect(key("http://4294967295/a") == "http://255.255.255.255/a")
        // Not IPv4 addresses (domains, or hosts WHATWG refuses): as written.
        for url in [
            "http://example.com/a", "http://1.2.3.256/a", "http://a.1/a", "http://4294967296/a", "http://1.2.3.4.5/a",
            "http://09.1/a", "http://1x.example/a", "http://[::1]/a", "http://1.example.2a/a",
        ] {
            #expect(key(url) == url, "\(url)")
        }
    }

    /// Session 16 review: `http://[0:0::1]:8080/a` and `http://[::1]:8080/a`
    /// were two entries of one image; WHATWG writes an IPv6 host one way.
    @Test func anIPv6AddressIsWrittenAsWHATWGWritesIt() {
        let cases: [(written: String, key: String)] = [
            ("http://[0:0::1]:8080/a", "http://[::1]:8080/a"), ("http://[0000:0:0:0:0:0:0:0001]/a", "http://[::1]/a"),
            ("http://[::FFFF:7f00:1]/a", "http://[::ffff:7f00:1]/a"),
            ("http://[::ffff:127.0.0.1]/a", "http://[::ffff:7f00:1]/a"),
            ("http://[2001:db8:0:0:1:0:0:1]/a", "http://[2001:db8::1:0:0:1]/a"),
            ("http://[2001:0db8::0:1]/a", "http://[2001:db8::1]/a"), ("http://[1:0:0:0:0:0:0:0]/a", "http://[1::]/a"),
            ("http://[::]/a", "http://[::]/a"), ("http://[1:2:3:4:5:6:7:8]/a", "http://[1:2:3:4:5:6:7:8]/a"),
            ("http://[1:0:2:3:4:5:6:7]/a", "http://[1:0:2:3:4:5:6:7]/a"),
        ]
        for (written, expected) in cases {
            #expect(key(written) == expected, "\(written)")
        }
        // Not addresses WHATWG accepts: as written.
        for url in ["http://[1:2:3:4:5:6:7:8:9]/a", "http://[::1::2]/a", "http://[::1.2.3]/a", "http://[:1]/a"] {
            #expect(key(url) == url, "\(url)")
        }
    }

    @Test func schemeAndHostAreLowerCasedAndTheDefaultPortDropped() {
        #expect(key("HTTP://Example.COM:80/a.jpg") == "http://example.com/a.jpg")
        #expect(key("https://example.com:443/a.jpg") == "https://example.com/a.jpg")
        #expect(key("https://example.com:0443/a.jpg") == "https://example.com/a.jpg")
        #expect(key("http://example.com:443/a.jpg") == "http://example.com:443/a.jpg")
        #expect(key("http://example.com:/a.jpg") == "http://example.com/a.jpg")
        #expect(key("http://example.com") == "http://example.com/")
        #expect(key("http://example.com?x=1") == "http://example.com/?x=1")
        #expect(key("http://[::1]:80/x") == "http://[::1]/x")
    }

    @Test func nonASCIIIsPercentEncodedAndEscapesUpperCased() {
        let expected = "http://example.com/caf%C3%A9.jpg?q=%C3%A9"
        #expect(key("http://example.com/café.jpg?q=é") == expected)
        #expect(key("http://example.com/caf%C3%A9.jpg?q=%C3%A9") == expected)
        #expect(key("http://example.com/caf%c3%a9.jpg?q=%c3%A9") == expected)
        #expect(key("http://example.com/a b\"<>.jpg") == "http://example.com/a%20b%22%3C%3E.jpg")
        #expect(key("http://example.com/100%.jpg") == "http://example.com/100%.jpg")
    }

    /// As WHATWG resolves them, and as libcurl sends the request anyway.
    @Test func dotSegmentsInThePathAreResolved() {
        #expect(key("http://example.com/a/./b/../c.jpg") == "http://example.com/a/c.jpg")
        #expect(key("http://example.com/a/%2e/b/%2E%2e/c.jpg?x=/../y") == "http://example.com/a/c.jpg?x=/../y")
        #expect(key("http://example.com/a/..") == "http://example.com/")
        #expect(key("http://example.com/a/.") == "http://example.com/a/")
        #expect(key("http://example.com/../../a.jpg") == "http://example.com/a.jpg")
        #expect(key("http://example.com/a//../b") == "http://example.com/a/b")
        #expect(key("http://example.com/caf%c3%a9/../é.jpg") == "http://example.com/%C3%A9.jpg")
        // Not dot segments: kept as they are, and the fast path's answer.
        for url in ["http://example.com/a/.b/..c/.../a..jpg", "http://example.com/a//b/", "http://example.com/%2Ex"] {
            #expect(key(url) == url)
        }
    }

    /// Found by FuzzArguments: `%23` decoded in a host put a `#` in the key.
    @Test func anEscapeThatDecodesToAForbiddenHostByteStaysAnEscape() {
        #expect(key("http://ex%23ample.com/a") == "http://ex%23ample.com/a")
        #expect(key("http://EX%2Fample.com/a") == "http://ex%2fample.com/a")
        #expect(key("http://b%C3%BCcher.example/a") == "http://xn--bcher-kva.example/a")
        for url in ["http://a%23b/", "http://a%3Fb/", "http://%40x/", "http://a%00b/"] {
            #expect(!key(url).contains("#") && !key(url).contains("?"), "\(key(url))")
        }
    }

    @Test func aNonASCIIHostIsInIDNAForm() {
        #expect(key("http://bücher.example/a.jpg") == "http://xn--bcher-kva.example/a.jpg")
        #expect(key("http://BÜCHER.example/a.jpg") == "http://xn--bcher-kva.example/a.jpg")
        #expect(key("http://b%C3%BCcher.example/a.jpg") == "http://xn--bcher-kva.example/a.jpg")
    }

    @Test func punycodeMatchesRFC3492() {
        // RFC 3492 §7.1 samples (B), (D) and (L), and two of Python's.
        let samples = [
            ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
            ("pročprostěnemluvíčesky", "proprostnemluvesky-uyb24dma41a"),
            ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
            ("münchen", "mnchen-3ya"), ("bücher", "bcher-kva"),
        ]
        for (text, encoded) in samples {
            #expect(Punycode.encode(Array(text.unicodeScalars)) == encoded, "\(text)")
        }
    }

    @Test func keyOptionsApplyAfterNormalising() {
        let policy = CacheKeyPolicy(strippedParameters: ["sig"])
        #expect(
            policy.key(for: "HTTP://Example.com:80/café.jpg?sig=1&w=2").string == "http://example.com/caf%C3%A9.jpg?w=2"
        )
        #expect(CacheKeyPolicy(ignoresQuery: true).key(for: "http://EXAMPLE.com/a?x").string == "http://example.com/a")
    }
}
