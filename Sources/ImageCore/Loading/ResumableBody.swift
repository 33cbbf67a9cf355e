/// The resume protocol for one transfer whose body goes to a shared partial
/// file (see `PartialDownload`): it asks for the rest with `Range` and
/// `If-Range`, checks the server's `Content-Range`, records the validator
/// for a later resume, and at the end either hands the body over, still
/// locked, or keeps it.
///
/// A class: the transfer reads it at every chunk (`kept`, the record's
/// timer), and an optional struct of these fields was copied and destroyed
/// through its value witnesses at each read (2.4 k instructions a cold URL).
/// One transfer owns it, on the loop thread.
final class ResumableBody {
    /// The open, locked partial body.
    let partial: PartialDownload
    /// Bytes kept from an earlier transfer; the server sends the rest.
    private(set) var offset: Int
    /// The whole body's length from Content-Range, when resuming.
    private(set) var total: Int?
    /// Whether a resume record was written for this body.
    private(set) var recordWritten = false
    /// The resume record this body is large enough for, not written yet:
    /// the URL and the validator.
    private var pendingRecord: (url: String, validator: String)?
    /// When the body's first bytes arrived.
    private var startTime = 0.0

    /// How long a body must take before its record is written while it
    /// downloads. A record is a file created, renamed and removed: for a
    /// body that arrives sooner it costs more than a resume could save, and
    /// if such a body breaks off, the record is written then (whatever its
    /// size: on a slow link a small body takes as long as a large one).
    static let recordDelay = 1.0

    /// Takes over `partial`, resuming from what it holds.
    init(_ partial: PartialDownload) {
        self.partial = partial
        offset = partial.resumable?.offset ?? 0
    }

    /// The headers that ask for the rest of the body; none for a fresh one.
    var requestHeaders: [HTTPHeader] {
        guard let validator = partial.resumable?.validator, offset > 0 else { return [] }
        return [HTTPHeader(name: "Range", value: "bytes=\(offset)-"), HTTPHeader(name: "If-Range", value: validator)]
    }

    /// Decides, at the first body bytes, whether the server resumed the body
    /// (206 at our offset) or sent it whole (200: the resource changed, or
    /// the server ignores ranges), and records the validator for a later
    /// resume. Returns whether the body was resumed.
    func start(status: Int, head: ResponseHead, url: String) -> Bool {
        var resumed = false
        if offset > 0 {
            let range = Self.contentRange(head.headers[.contentRange])
            if status == 206, range?.start == offset {
                total = range?.total
                resumed = true
            } else {
                PartialDownload.forget(partial.path, file: partial.file)
                offset = 0
            }
        }
        // Only a strong validator makes a resume safe: without one, a body
        // that breaks off is removed, not kept. The record is written once
        // the body has arrived for `recordDelay`, or when it breaks off.
        if let validator = PartialDownload.strongValidator(head.headers) {
            pendingRecord = (url, validator)
            startTime = WallClock.now()
        }
        return resumed
    }

    /// Whether the record is to be written now: the body has been arriving
    /// for `recordDelay` seconds, so a process killed from then on leaves a
    /// resumable body. The caller writes the bytes it holds back to the
    /// file first (`BodySink.flush`), then `writeRecord()`.
    func recordIsDue(now: Double) -> Bool {
        pendingRecord != nil && now - startTime >= Self.recordDelay
    }

    /// Writes the record (once), naming the file as it is now.
    func writeRecord() {
        guard let record = pendingRecord else { return }
        pendingRecord = nil
        recordWritten = true
        PartialDownload.remember(partial.path, url: record.url, validator: record.validator)
    }

    /// The problem with a finished resumed body of `size` bytes, if it is
    /// not the length Content-Range announced.
    func sizeProblem(_ size: Int) -> ImageCoreError? {
        guard let total, total != size else { return nil }
        return ImageCoreError(.network, "resumed body is \(size) bytes, the server said \(total)")
    }

    /// Drops the finished body's resume record and returns a hold on its
    /// lock: the body stays at its shared name, locked, until the caller
    /// renames it into the cache (one rename, not two) or removes it, so no
    /// other process starts writing into it meanwhile.
    func finished() -> BodyLock {
        if recordWritten || offset > 0 { _ = try? POSIXFile.remove(PartialDownload.recordPath(partial.path)) }
        return BodyLock(holding: partial.file)
    }

    /// Whether a failed body is kept for a resume: only one broken off by
    /// the network, large enough for a record (written now if it was not
    /// yet) or with resumed bytes, and not one that came out the wrong length.
    func keeps(after error: ImageCoreError, wrongLength: Bool) -> Bool {
        guard error.kind == .network && !wrongLength else { return false }
        writeRecord()
        return recordWritten || offset > 0
    }

    /// "bytes 500-999/1000" → start 500, total 1000 (nil total for "*").
    static func contentRange(_ value: String?) -> (start: Int, total: Int?)? {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let start = parts[0].split(separator: "-").first.flatMap({ Int($0) }) else {
            return nil
        }
        return (start, Int(parts[1]))
    }
}
