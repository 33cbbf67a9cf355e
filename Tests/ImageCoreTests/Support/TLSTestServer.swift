import Foundation
import TestSupport

/// An HTTPS server on 127.0.0.1 with a freshly made self-signed certificate:
/// Python's http.server behind its ssl module, started and stopped by the
/// test (Swift's own test server speaks plain HTTP only), and killed with the
/// test process however it ends (`ServerLauncher`). Answers every GET
/// with `body`.
final class TLSTestServer {
    let port: Int
    private let process: Process
    private let directory: TemporaryDirectory

    init(body: [UInt8]) throws {
        directory = try TemporaryDirectory()
        let path = directory.path
        try Data(body).write(to: URL(fileURLWithPath: "\(path)/body"))
        try Self.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", "\(path)/key.pem", "-out", "\(path)/cert.pem", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        let script = """
            import http.server, ssl, sys
            body = open(sys.argv[3], 'rb').read()
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args): pass
            server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", script, "\(path)/cert.pem", "\(path)/key.pem", "\(path)/body"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try ServerLauncher.run(server)
        process = server
        var line = [UInt8]()
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(server.processIdentifier, SIGKILL)
            throw POSIXError(.ECONNREFUSED)
        }
        self.port = port
    }

    deinit {
        // SIGKILL: the child inherits the test runner's signal mask, in
        // which SIGTERM may be blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// "https://127.0.0.1:PORT/path".
    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXError(.EIO) }
    }
}
