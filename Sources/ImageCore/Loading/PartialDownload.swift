/// A body kept in its entry's shard directory after a download broke off
/// (connection lost, timeout, process killed), with a record beside it of
/// what a resume needs: the URL and a strong validator. A later download of
/// the same URL asks for the rest with `Range` + `If-Range`, so a changed
/// resource is sent whole rather than spliced onto old bytes (which `wget -c`
/// cannot tell apart from a longer file).
///
/// The body file is locked (`flock`) by the process writing it, until the
/// finished body is renamed into the cache (`BodyLock`); a second process
/// downloading the same URL at once uses a private temporary file.
struct PartialDownload {
    /// Partials older than this are not resumed (and `clean` removes them).
    static let maxAge = CacheDirectory.partialMaxAge

    /// Where the body is written.
    var path: String { file.path }
    /// The open, locked body file.
    let file: OpenFile
    /// Bytes already there that a resume may keep, and the validator to send in If-Range.
    let resumable: (offset: Int, validator: String)?

    /// The record file beside a partial body.
    static func recordPath(_ path: String) -> String { path + ".resume" }

    /// Opens and locks the partial body at `path` for `url`; nil if another
    /// process holds it. Reports what can be resumed, and leaves the file
    /// positioned to append to it.
    static func open(_ path: String, url: String) -> PartialDownload? {
        guard let file = try? OpenFile.locked(path, waiting: false) else { return nil }
        // Between our open and our lock, the process that held the lock may
        // have removed the file (a failed download, `clean`): it has no name
        // left. Or it renamed the finished body into the cache: that file
        // is an entry now, not a partial to write into; it is not empty (no
        // empty body is stored), so only a file with bytes is checked
        // against its name. A fresh empty one, a cold download's, costs one
        // `fstat`, not an `fstat` and a `stat`.
        guard let (size, links) = file.sizeAndLinks(), links > 0, size == 0 || file.isStill(at: path) else {
            file.close()
            return nil
        }
        guard size > 0 else {
            // A new, empty body: nothing to resume and nothing to forget.
            return PartialDownload(file: file, resumable: nil)
        }
        var resumable: (Int, String)?
        if let record = try? POSIXFile.read(recordPath(path), limit: 8192),
            let status = POSIXFile.status(recordPath(path)), WallClock.now() - status.modified < maxAge
        {
            let lines = String(decoding: record, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count >= 2, lines[0] == url, !lines[1].isEmpty {
                resumable = (size, String(lines[1]))
            }
        }
        if resumable == nil { forget(path, file: file) } else { file.seekToEnd() }
        return PartialDownload(file: file, resumable: resumable)
    }

    /// The validator a resume may rely on: an ETag that is not weak, or a
    /// Last-Modified at least a second older than Date (RFC 9110 §8.8.2.2).
    static func strongValidator(_ headers: ResponseHeaders) -> String? {
        if let etag = headers[.etag], !etag.hasPrefix("W/") { return etag }
        if let modified = headers[.lastModified], let lastModified = HTTPDate.parse(modified),
            let date = headers[.date].flatMap(HTTPDate.parse), date - lastModified >= 1
        {
            return modified
        }
        return nil
    }

    /// Records that the body now being written may be resumed with `validator`.
    static func remember(_ path: String, url: String, validator: String) {
        try? POSIXFile.writeAtomically(
            Array("\(url)\n\(validator)\n".utf8), to: recordPath(path),
            temporaryDirectory: String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    }

    /// Empties the body and removes its record (the body is still locked).
    static func forget(_ path: String, file: OpenFile) {
        _ = try? POSIXFile.remove(recordPath(path))
        file.truncate()
    }

    /// Removes the body and its record.
    static func discard(_ path: String) {
        _ = try? POSIXFile.remove(recordPath(path))
        _ = try? POSIXFile.remove(path)
    }
}
