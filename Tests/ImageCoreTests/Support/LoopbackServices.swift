import Foundation

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
    import TestSupport
#endif

/// Real nginx and redis-server processes on 127.0.0.1 for the remote-storage
/// tests, each in its own temporary directory, stopped at deinit, and killed
/// with the test process however it ends (`ServerLauncher`). Tests skip
/// with a message when the binaries are absent (`make deps` installs them).
enum LoopbackServices {
    static let nginx = "/usr/sbin/nginx"
    static let redis = "/usr/bin/redis-server"

    static var haveNginx: Bool { FileManager.default.isExecutableFile(atPath: nginx) }
    static var haveRedis: Bool { FileManager.default.isExecutableFile(atPath: redis) }

    /// A port nothing listens on right now (the kernel's choice, released).
    static func freePort() throws -> Int {
        let (descriptor, port) = try LoopbackSocket.bound()
        close(descriptor)
        return port
    }

    /// Waits until `process` itself listens on `port` (at most `seconds`:
    /// `waitPatience`, as a start on two cores shared with the parallel
    /// suites has taken Apache past 10 s, and a start that comes returns at once).
    /// A port from `freePort` is free when chosen, not reserved: another
    /// socket of the test run (a loopback server's, a probe's) can take it
    /// before the server binds it. The server then exits (Apache, redis,
    /// weed), or retries its bind for 2.5 s (nginx) while the other socket
    /// accepts in its place, which a connect alone took for the server.
    static func waitForListener(_ port: Int, _ process: Process, seconds: Double = waitPatience) throws {
        for _ in 0..<Int(seconds * 50) {
            guard process.isRunning else {
                throw ServiceError("exited before listening on \(port)", portMayBeTaken: true)
            }
            if let listener = listeningSocket(port) {
                guard socketsHeld(by: process.processIdentifier).contains(listener) else {
                    throw ServiceError("another socket listens on \(port)", portMayBeTaken: true)
                }
                return
            }
            usleep(20_000)
        }
        throw ServiceError("nothing listens on \(port)")
    }

    /// The inode of the TCP socket listening on `port`, if any (`/proc/net/tcp`).
    static func listeningSocket(_ port: Int) -> String? {
        let table = procFileText("/proc/net/tcp") ?? ""
        let local = ":" + String(format: "%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(local), fields[3] == "0A" else { continue }
            return String(fields[9])
        }
        return nil
    }

    /// The inodes of the sockets `pid` holds open.
    static func socketsHeld(by pid: Int32) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            names.compactMap { name in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst(8).dropLast())
            })
    }

    /// A server's process, and the port it listens on.
    typealias Started = (process: Process, port: Int)

    /// Starts a server on a free port (`start` writes its configuration
    /// for the port and runs it) and waits until it listens there; a start
    /// that does not (its port taken meanwhile, `waitForListener`) is stopped
    /// and tried again on another port.
    static func startListening(seconds: Double = waitPatience, _ start: (Int) throws -> Process) throws -> Started {
        var failure = ServiceError("not started")
        for _ in 0..<5 {
            let port = try freePort()
            let process = try start(port)
            do {
                try waitForListener(port, process, seconds: seconds)
                return (process, port)
            } catch let error as ServiceError where error.portMayBeTaken {
                stop(process)
                failure = error
            } catch {
                stop(process)
                throw error
            }
        }
        throw failure
    }

    /// Runs the server `executable` with its output discarded, to die with
    /// this process (`ServerLauncher`).
    static func run(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ServerLauncher.run(process)
        return process
    }

    /// A server's log lines so far (none before it writes the file).
    static func lines(of path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops a server at once (SIGKILL: a store that disappears).
    static func stop(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    struct ServiceError: Error, CustomStringConvertible {
        var description: String
        /// Whether a start on another port may succeed (`waitForListener`).
        var portMayBeTaken = false
        init(_ description: String, portMayBeTaken: Bool = false) {
            self.description = description
            self.portMayBeTaken = portMayBeTaken
        }
    }
}

/// One nginx (a single process: `master_process off`, so it never switches
/// user and can write a WebDAV directory owned by the test) with the given
/// `server` block body. The access log holds `STATUS METHOD URI` lines.
final class NginxProcess: @unchecked Sendable {
    // Why unchecked: `process` is set once in init; Process is thread-safe enough for terminate/wait.
    let port: Int
    let work: TemporaryDirectory
    private let process: Process

    init(serverBody: String, httpBody: String = "") throws {
        let work = try TemporaryDirectory()
        self.work = work
        (process, port) = try LoopbackServices.startListening { port in
            let config = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(work.path)/nginx.pid;
                error_log \(work.path)/error.log warn;
                events { worker_connections 1024; }
                http {
                    log_format plain '$status $request_method $request_uri';
                    access_log \(work.path)/access.log plain;
                    client_body_temp_path \(work.path)/body;
                    proxy_temp_path \(work.path)/proxy;
                    fastcgi_temp_path \(work.path)/fastcgi;
                    uwsgi_temp_path \(work.path)/uwsgi;
                    scgi_temp_path \(work.path)/scgi;
                    types { image/png png; }
                    keepalive_requests 100000;
                    \(httpBody)
                    server {
                        listen 127.0.0.1:\(port);
                        \(serverBody)
                    }
                }
                """
            try config.write(toFile: "\(work.path)/nginx.conf", atomically: true, encoding: .utf8)
            return try LoopbackServices.run(
                LoopbackServices.nginx,
                ["-c", "\(work.path)/nginx.conf", "-p", work.path, "-e", "\(work.path)/error.log"])
        }
    }

    deinit { stop() }

    /// The base URL.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Access-log lines so far (`STATUS METHOD URI`).
    var log: [String] { LoopbackServices.lines(of: "\(work.path)/access.log") }

    /// Requests with this method so far (call `waitForLog()` first: a
    /// client may see its answer before nginx writes the log line).
    func count(_ method: String) -> Int {
        log.filter { $0.split(separator: " ").dropFirst().first == Substring(method) && !$0.contains(Self.mark) }
            .count
    }

    private static let mark = "/imgcache-test-log-mark-"

    /// Returns once nginx has logged every request it answered before the
    /// call. nginx logs a request as it finishes it, and one worker finishes
    /// them in the order it answers them: so once a marker request made now
    /// is in the log, every earlier one is too. Waits for that state, not a guess.
    func waitForLog() throws {
        let marker = "\(Self.mark)\(UUID().uuidString)"
        let (descriptor, _) = try LoopbackSocket.bound()
        defer { close(descriptor) }
        guard LoopbackSocket.connect(descriptor, port: port) else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(marker) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard write(descriptor, request, request.count) == request.count else { throw POSIXError(.EIO) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
        let deadline = Date().addingTimeInterval(30)
        while !log.contains(where: { $0.contains(marker) }) {
            guard Date() < deadline else { throw LoopbackServices.ServiceError("nginx logged no \(marker)") }
            usleep(5_000)
        }
    }

    /// Stops nginx at once (SIGKILL: a remote that disappears).
    func stop() { LoopbackServices.stop(process) }
}

/// An ephemeral redis-server on a free port, persisting nothing.
final class RedisProcess: @unchecked Sendable {
    // Why unchecked: as for NginxProcess.
    let port: Int
    private let work: TemporaryDirectory
    private let process: Process

    init(password: String? = nil) throws {
        let work = try TemporaryDirectory()
        self.work = work
        (process, port) = try LoopbackServices.startListening { port in
            try LoopbackServices.run(
                LoopbackServices.redis,
                [
                    "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", work.path, "--maxmemory-policy", "allkeys-lru",
                ] + (password.map { ["--requirepass", $0] } ?? []))
        }
    }

    deinit { stop() }

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Stops the server at once (SIGKILL: a store that disappears).
    func stop() { LoopbackServices.stop(process) }

    /// A connection for inspecting what the server holds.
    func connect() throws -> RedisConnection {
        try RedisConnection(host: "127.0.0.1", port: port, connectTimeout: 1, timeout: 1)
    }
}
