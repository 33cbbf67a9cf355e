import TestSupport
import Testing

@testable import ImageCore

/// The proxy variables as libcurl reads them, which a run now reads once
/// (`ProxyEnvironment`): each case's download goes through the proxy, or
/// straight to the origin, as it did when libcurl read them at every
/// transfer. The proxy is a server that answers every request itself.
struct ProxyEnvironmentTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var arguments: [String] = []
        var throughProxy: Bool
        var testDescription: String {
            (environment.sorted { $0.key < $1.key }.map { "\($0)=\($1)" } + arguments).joined(separator: " ")
        }
    }

    /// PROXY stands for the proxy's URL.
    static let cases: [Case] = [
        Case(environment: [:], throughProxy: false),
        Case(environment: ["http_proxy": "PROXY"], throughProxy: true),
        Case(environment: ["HTTP_PROXY": "PROXY"], throughProxy: false),
        Case(environment: ["https_proxy": "PROXY", "HTTPS_PROXY": "PROXY"], throughProxy: false),
        Case(environment: ["all_proxy": "PROXY"], throughProxy: true),
        Case(environment: ["ALL_PROXY": "PROXY"], throughProxy: true),
        Case(environment: ["http_proxy": "", "all_proxy": "PROXY"], throughProxy: true),
        Case(environment: ["http_proxy": "PROXY", "no_proxy": "127.0.0.1"], throughProxy: false),
        Case(environment: ["ALL_PROXY": "PROXY", "NO_PROXY": "*"], throughProxy: false),
        Case(environment: ["http_proxy": "PROXY", "no_proxy": "localhost,127.0.0.2"], throughProxy: true),
        Case(environment: [:], arguments: ["--proxy", "PROXY"], throughProxy: true),
        Case(environment: ["no_proxy": "127.0.0.1"], arguments: ["--proxy", "PROXY"], throughProxy: false),
        Case(environment: ["http_proxy": "http://127.0.0.1:1/"], arguments: ["--proxy", "PROXY"], throughProxy: true),
    ]

    @Test(arguments: cases) func aDownloadTakesTheWayItsEnvironmentSays(_ test: Case) throws {
        let origin = try TestHTTPServer()
        let proxy = try TestHTTPServer()
        origin.route("/a.png", .ok(Fixtures.tinyPNG))
        proxy.routeOthers { _ in .ok(Fixtures.tinyPNG) }
        let proxyURL = proxy.url("/")
        // Every variable libcurl reads, empty (unset to libcurl) unless the case sets it.
        var environment = Dictionary(
            uniqueKeysWithValues: (ProxyEnvironment.names + ["HTTP_PROXY", "no_proxy", "NO_PROXY"]).map { ($0, "") })
        for (name, value) in test.environment { environment[name] = value == "PROXY" ? proxyURL : value }
        let arguments = test.arguments.map { $0 == "PROXY" ? proxyURL : $0 }
        let cache = try TemporaryDirectory()
        let run = try CLI.run(
            ["fetch", "--no-store", "-o", "/dev/null"] + arguments + [origin.url("/a.png")], cacheDir: cache.path,
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(proxy.requests.count == (test.throughProxy ? 1 : 0))
        #expect(origin.requestCount(for: "/a.png") == (test.throughProxy ? 0 : 1))
    }
}
