#if canImport(Glibc)
import Glibc
#endif

/// A body kept in its entry's shard directory after a download broke off
/// (connection lost, timeout, process killed), with a record beside it of
/// what a resume needs: the URL and a strong validator. A later download of
/// the same URL asks for the rest with `Range` + `If-Range`, so a changed
/// resource is sent whole rather than spliced onto old bytes (which `wget -c`
/// cannot tell apart from a longer file).
///
/// The body file is locked (`flock`) by the process writing it; a second
/// process downloading the same URL at once uses a private temporary file.
struct PartialDownload {
    /// Partials older than this are not resumed (and `clean` removes them).
    static let maxAge: Double = 86400
    /// Bodies smaller than this are not worth a resume record.
    static let smallestResumable = 128 * 1024

    /// Where the body is written.
    let path: String
    /// The open, locked body file.
    let fd: Int32
    /// Bytes already there that a resume may keep, and the validator to send in If-Range.
    let resumable: (offset: Int, validator: String)?

    /// The record file beside a partial body.
    static func recordPath(_ path: String) -> String { path + ".resume" }

    /// Opens and locks the partial body at `path` for `url`; nil if another
    /// process holds it. Reports what can be resumed.
    static func open(_ path: String, url: String) -> PartialDownload? {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        var info = stat()
        var resumable: (Int, String)?
        guard fstat(fd, &info) == 0, info.st_size > 0 else {
            // A new, empty body: nothing to resume and nothing to forget.
            return PartialDownload(path: path, fd: fd, resumable: nil)
        }
        if
           let record = try? POSIXFile.read(recordPath(path), limit: 8192),
           let status = POSIXFile.status(recordPath(path)), WallClock.now() - status.modified < maxAge {
            let lines = String(decoding: record, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count >= 2, lines[0] == url, !lines[1].isEmpty {
                resumable = (Int(info.st_size), String(lines[1]))
            }
        }
        if resumable == nil { forget(path, fd: fd) }
        return PartialDownload(path: path, fd: fd, resumable: resumable)
    }

    /// The validator a resume may rely on: an ETag that is not weak, or a
    /// Last-Modified at least a second older than Date (RFC 9110 §8.8.2.2).
    static func strongValidator(_ headers: [String: String]) -> String? {
        if let etag = headers["etag"], !etag.hasPrefix("W/") { return etag }
        if let modified = headers["last-modified"], let lastModified = HTTPDate.parse(modified),
           let date = headers["date"].flatMap(HTTPDate.parse), date - lastModified >= 1 {
            return modified
        }
        return nil
    }

    /// Records that the body now being written may be resumed with `validator`.
    static func remember(_ path: String, url: String, validator: String?) {
        guard let validator else { return _ = try? POSIXFile.remove(recordPath(path)) }
        try? POSIXFile.writeAtomically(Array("\(url)\n\(validator)\n".utf8), to: recordPath(path),
                                       temporaryDirectory: String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    }

    /// Empties the body and removes its record (the body is still locked).
    static func forget(_ path: String, fd: Int32) {
        _ = try? POSIXFile.remove(recordPath(path))
        _ = ftruncate(fd, 0)
        _ = lseek(fd, 0, SEEK_SET)
    }

    /// Removes the body and its record.
    static func discard(_ path: String) {
        _ = try? POSIXFile.remove(recordPath(path))
        _ = try? POSIXFile.remove(path)
    }
}
