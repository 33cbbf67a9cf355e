import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Small distinct PNGs served by a real nginx origin, and the pieces the
/// remote-storage tests share.
final class NginxOrigin: Sendable {
    let nginx: NginxProcess
    let root: TemporaryDirectory
    let urls: [String]
    let files: [String: [UInt8]]

    /// `count` images, each 8×8 with its own pixels, fresh for an hour.
    init(count: Int, cacheControl: String = "max-age=3600") throws {
        root = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for index in 0..<count {
            var pixels: [UInt8] = []
            for pixel in 0..<64 { pixels += [UInt8(index % 256), UInt8(index / 256), UInt8(pixel * 4), 255] }
            let bytes = try PNGEncoder.encode(pixels, width: 8, height: 8)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(root.path)/img\(index).png"))
            files["/img\(index).png"] = bytes
        }
        nginx = try NginxProcess(
            serverBody: """
                location / { root \(root.path); add_header Cache-Control "\(cacheControl)"; }
                """)
        urls = (0..<count).map { [nginx] in "\(nginx.url)/img\($0).png" }
        self.files = files
    }

    /// The origin's bytes for a URL.
    func bytes(_ url: String) -> [UInt8]? {
        files[String(url.dropFirst(nginx.url.count))]
    }
}

/// nginx's WebDAV module as an HTTP remote storage, with the directory it
/// keeps objects in. One object, so the directory lives as long as the
/// server that writes there: a test that dropped it (`let (dav, _) = …`)
/// had it removed at once, and nginx's `create_full_put_path` made it again
/// on the first upload, left in /tmp after the run.
final class WebDAVRemote: Sendable {
    let nginx: NginxProcess
    let store: TemporaryDirectory

    /// `methods`: `dav_methods`; with MKCOL the store holds download leases.
    init(methods: String = "PUT DELETE") throws {
        store = try TemporaryDirectory()
        nginx = try NginxProcess(
            serverBody: """
                location / { root \(store.path); dav_methods \(methods); create_full_put_path on; client_max_body_size 100m; }
                """)
    }

    var url: String { nginx.url }

    func stop() { nginx.stop() }
}

/// Where an HTTP remote keeps `url`'s entry under the store's root.
func remoteObjectPath(_ store: TemporaryDirectory, _ url: String) -> String {
    "\(store.path)/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(url).hash)"
}

/// The JSON Lines records a run printed.
func records(_ result: CLI.Result) -> [[String: Any]] {
    result.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// A cache's cumulative counters, as `stat --json` reports them.
func counters(_ cache: TemporaryDirectory) throws -> [String: Int] {
    let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path)
    let record = try #require(records(stat).first)
    return (record["counters"] as? [String: Int]) ?? [:]
}
