import Testing

@testable import ImageCore

/// The failed list's per-request digest, which names record files: the same
/// request gives the same name, another secret another, and no name lets a
/// password be tested with one SHA-256.
struct FailedURLDigestTests {
    func request(credentials: String? = nil, header: String? = nil) -> DownloadRequest {
        var request = DownloadRequest(url: "http://127.0.0.1:9/a.png")
        request.credentials = credentials
        if let header { request.headers = [HTTPHeader(parsing: header)!] }
        return request
    }

    @Test func aPlainRequestHasNone() {
        #expect(FailedURLRegistry.requestDigest(request(), cookies: nil) == nil)
    }

    @Test func eachSecretHasItsOwnAndTheSameOneTheSame() throws {
        let alice = try #require(FailedURLRegistry.requestDigest(request(credentials: "alice:secret"), cookies: nil))
        #expect(alice.count == 16)
        #expect(FailedURLRegistry.requestDigest(request(credentials: "alice:secret"), cookies: nil) == alice)
        #expect(FailedURLRegistry.requestDigest(request(credentials: "alice:secreT"), cookies: nil) != alice)
        let bearer = FailedURLRegistry.requestDigest(request(header: "Authorization: Bearer abc"), cookies: nil)
        #expect(bearer != nil && bearer != alice)
        #expect(FailedURLRegistry.requestDigest(request(), cookies: Array("session=1".utf8)) != nil)
    }

    /// The name is not a plain SHA-256 of what holds the password (which
    /// anyone listing the cache could test guesses against at a hash a
    /// guess): the secrets enter stretched.
    @Test func aPasswordIsNotOneHashAwayFromTheName() throws {
        let name = try #require(FailedURLRegistry.requestDigest(request(credentials: "alice:secret"), cookies: nil))
        #expect(name != String(Digest.sha256Hex(Array("user alice:secret".utf8)).prefix(16)))
        let stretched = Digest.stretchedHex(
            Array("user alice:secret".utf8), salt: "imgcache failed-URL list",
            iterations: FailedURLRegistry.stretchingRounds)
        #expect(name == String(Digest.sha256Hex(Array("secrets \(stretched)".utf8)).prefix(16)))
        #expect(FailedURLRegistry.stretchingRounds >= 100_000)
    }

    /// RFC 7914's PBKDF2-HMAC-SHA256 test vector: the shim computes the function it names.
    @Test func stretchingIsPBKDF2() {
        #expect(
            Digest.stretchedHex(Array("passwd".utf8), salt: "salt", iterations: 1)
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }
}
