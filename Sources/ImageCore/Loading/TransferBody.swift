/// Where a transfer's body goes: the shared partial file of its entry,
/// locked (with what of it can be resumed), or a private temporary file.
/// Opened by the caller before the transfer is queued where it can be, so
/// that creating the file (on ext4 the dearest call of a download) runs
/// beside the download thread rather than on it.
struct TransferBody: @unchecked Sendable {
    // Why unchecked: the open files are handed from the caller to the
    // download thread once, through the queue's lock, and used by one
    // thread at a time.
    let sink: BodySink
    let resumable: ResumableBody?

    /// Opens the body of `request`: its partial file if it has one and no
    /// other process holds it, else a new file in `temporaryDirectory`, or
    /// no file at all if the body is kept in memory (asked for, or the
    /// directory cannot take a file).
    init(for request: DownloadRequest, temporaryDirectory: String) throws {
        if request.keepsBodyInMemory {
            resumable = nil
            sink = BodySink()
        } else if let path = request.resumableBodyPath, let partial = PartialDownload.open(path, url: request.url) {
            resumable = ResumableBody(partial)
            sink = BodySink(partial.file)
        } else {
            resumable = nil
            // A cache whose temporary directory cannot take a file (full,
            // unwritable) does not stop the download: its body stays in memory.
            sink = (try? BodySink(temporaryIn: temporaryDirectory)) ?? BodySink()
        }
    }

    /// Removes the body of a transfer that never ran.
    func discard() {
        Self.remove(sink, resumable: resumable)
        sink.close()
    }

    /// Removes a body's file: a partial with its resume record, or a private file.
    static func remove(_ sink: BodySink, resumable: ResumableBody?) {
        if let resumable {
            PartialDownload.discard(resumable.partial.path)
        } else if !sink.path.isEmpty {
            _ = try? POSIXFile.remove(sink.path)
        }
    }
}
