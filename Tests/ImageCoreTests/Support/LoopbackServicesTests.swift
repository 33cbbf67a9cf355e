import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import TestSupport
#endif

/// The servers the remote suites start (nginx, Apache, redis, SeaweedFS)
/// on a port `freePort` found free: one that another socket took before the
/// server bound it must not pass for the server.
@Suite struct LoopbackServicesTests {
    /// A process that binds `port` and listens, or, if it cannot, waits
    /// without listening (as nginx retries a bind before it gives up), for
    /// `seconds` in either case.
    static func listener(on port: Int, seconds: Int = 30) throws -> Process {
        let script = """
            import socket, sys, time
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", \(port)))
                s.listen()
            except OSError:
                pass
            time.sleep(\(seconds))
            """
        return try LoopbackServices.run("/usr/bin/python3", ["-c", script])
    }

    /// The first start's port is taken by another socket just before the
    /// server would bind it; that socket accepts connections, so a connect
    /// succeeded there and the server that never listened was taken for
    /// started. The start is tried again on another port.
    @Test func aServerWhosePortWasTakenIsStartedOnAnother() throws {
        var taken: [Int32] = []
        defer { taken.forEach { close($0) } }
        var ports: [Int] = []
        let (process, port) = try LoopbackServices.startListening { port in
            ports.append(port)
            if ports.count == 1 {
                let thief = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                taken.append(thief)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(thief, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                #expect(bound == 0 && listen(thief, 8) == 0)
            }
            return try Self.listener(on: port)
        }
        defer { LoopbackServices.stop(process) }
        #expect(ports.count == 2 && port == ports[1], "\(ports), started on \(port)")
        let listening = try #require(LoopbackServices.listeningSocket(port))
        #expect(LoopbackServices.socketsHeld(by: process.processIdentifier).contains(listening))
    }

    /// Every listener is found, however long the socket table: with more
    /// sockets than one page of /proc/net/tcp holds (27), a listener listed
    /// past it was never seen, and its service "did not start" (with
    /// `String(contentsOfFile:)`, which reads one page, this test fails).
    @Test func aListenerPastTheSocketTablesFirstPageIsFound() throws {
        let servers = try (0..<60).map { _ in try TestHTTPServer() }
        defer { for server in servers { server.stop() } }
        let missed = servers.map(\.port).filter { LoopbackServices.listeningSocket($0) == nil }
        #expect(missed.isEmpty, "\(missed.count) of 60 listeners not found")
    }

    /// A test process killed with SIGKILL runs no deinit and no `atexit`: the
    /// servers it started must die with it all the same (`ServerLauncher`).
    /// A child test process (this bundle, running `holdsAServerUntilKilled`)
    /// starts a server that would listen for an hour and says its pid; the
    /// child is killed, and the server goes. With `process.run()` in
    /// `LoopbackServices.run`, the server outlives it and this test fails.
    @Test func aServerDiesWithTheTestProcessThatStartedIt() async throws {
        let scratch = try TemporaryDirectory()
        let pidFile = "\(scratch.path)/server.pid"
        let child = try ChildTestProcess.start(
            "holdsAServerUntilKilled", in: scratch, environment: [Self.holdServer: pidFile])
        defer { LoopbackServices.stop(child) }
        let serverPID = { (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0) } }
        #expect(await waitUntil { serverPID() != nil || !child.isRunning }, "the child started no server")
        let server = try #require(serverPID())
        #expect(Self.isAlive(server), "the server is running while its test process is")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(await waitUntil { !Self.isAlive(server) }, "server \(server) outlived its test process")
    }

    static let holdServer = "IMGCACHE_TEST_HOLD_SERVER"

    /// The child of `aServerDiesWithTheTestProcessThatStartedIt`: starts a
    /// server that listens for an hour, writes its pid to the file that
    /// `IMGCACHE_TEST_HOLD_SERVER` names, and waits to be killed.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment[holdServer] != nil,
            "runs only as the child process of aServerDiesWithTheTestProcessThatStartedIt"))
    func holdsAServerUntilKilled() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.holdServer])
        let (process, _) = try LoopbackServices.startListening { try Self.listener(on: $0, seconds: 3600) }
        try String(process.processIdentifier).write(toFile: path, atomically: true, encoding: .utf8)
        while true { sleep(60) }
    }

    /// Whether `pid` runs: not gone, nor a zombie left for init to reap.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = procFileText("/proc/\(pid)/stat"), let end = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: end)...].hasPrefix(" Z")
    }
}
