/// What every suite that runs the built binary needs, made once here rather
/// than copied into each suite: a loopback server, a cache directory of its
/// own, and `imgcache` run against both.
package struct CommandFixture: Sendable {
    /// The server the URLs point at.
    package let server: TestHTTPServer
    /// This suite instance's cache (removed when the suite instance goes).
    package let cache: TemporaryDirectory

    /// A new server and an empty cache.
    package init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
    }
}

/// A suite whose tests run `imgcache` on a `CommandFixture`; `server`,
/// `cache` and `run` come with it.
package protocol CommandSuite {
    var fixture: CommandFixture { get }
}

extension CommandSuite {
    /// The fixture's loopback server.
    package var server: TestHTTPServer { fixture.server }
    /// The fixture's cache directory.
    package var cache: TemporaryDirectory { fixture.cache }

    /// Runs `imgcache arguments...` on the fixture's cache, feeding `stdin`.
    package func run(
        _ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:]
    ) throws -> CLI.Result {
        try CLI.run(arguments, cacheDir: cache.path, stdin: stdin, environment: environment)
    }

    /// Runs `imgcache arguments...` on the fixture's cache.
    package func run(_ arguments: String...) throws -> CLI.Result {
        try run(arguments)
    }
}

extension CommandSuite {
    /// Runs `imgcache fetch arguments...` on the fixture's cache.
    package func fetch(_ arguments: String...) throws -> CLI.Result {
        try run(["fetch"] + arguments)
    }
}
