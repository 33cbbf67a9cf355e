import Foundation

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
    import TestSupport
#endif

extension LoopbackServices {
    static let apache = "/usr/sbin/apache2"
    static var haveApache: Bool { FileManager.default.isExecutableFile(atPath: apache) }
}

/// An Apache httpd with mod_dav serving a WebDAV directory on 127.0.0.1: a
/// real server that honours `If-None-Match: *` and `If-Match` on PUT and
/// DELETE, as nginx 1.22's DAV module does not. One process (`-X`), so
/// SIGKILL stops it whole. The access log holds `STATUS METHOD URI` lines.
final class ApacheProcess: @unchecked Sendable {
    // Why unchecked: as for NginxProcess.
    let port: Int
    let work: TemporaryDirectory
    private let process: Process

    init() throws {
        let work = try TemporaryDirectory()
        self.work = work
        let modules = "/usr/lib/apache2/modules"
        try FileManager.default.createDirectory(atPath: "\(work.path)/dav", withIntermediateDirectories: true)
        (process, port) = try LoopbackServices.startListening { port in
            let config = """
                ServerRoot \(work.path)
                ServerName 127.0.0.1
                Listen 127.0.0.1:\(port)
                PidFile \(work.path)/httpd.pid
                DefaultRuntimeDir \(work.path)
                ErrorLog \(work.path)/error.log
                LogFormat "%>s %m %U" plain
                CustomLog \(work.path)/access.log plain
                LoadModule mpm_event_module \(modules)/mod_mpm_event.so
                LoadModule authz_core_module \(modules)/mod_authz_core.so
                LoadModule dav_module \(modules)/mod_dav.so
                LoadModule dav_fs_module \(modules)/mod_dav_fs.so
                DAVLockDB \(work.path)/davlock
                KeepAliveTimeout 60
                MaxKeepAliveRequests 0
                DocumentRoot \(work.path)/dav
                <Directory \(work.path)/dav>
                    Dav On
                    Require all granted
                </Directory>
                """
            try config.write(toFile: "\(work.path)/httpd.conf", atomically: true, encoding: .utf8)
            return try LoopbackServices.run(LoopbackServices.apache, ["-X", "-f", "\(work.path)/httpd.conf"])
        }
    }

    deinit { stop() }

    /// The store's base URL.
    var url: String { "http://127.0.0.1:\(port)/" }

    /// Access-log lines so far (`STATUS METHOD URI`).
    var log: [String] { LoopbackServices.lines(of: "\(work.path)/access.log") }

    /// The file behind object `name` of the current layout.
    func objectPath(_ name: String) -> String {
        "\(work.path)/dav/imgcache/\(RemoteObject.layoutVersion)/\(name)"
    }

    /// Stops the server at once (SIGKILL: a store that disappears).
    func stop() { LoopbackServices.stop(process) }
}
