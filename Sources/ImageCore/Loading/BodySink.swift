/// The file a transfer's body goes into, after a check against the size
/// limit. Closing it (or dropping it) closes the file; the file's name
/// outlives it, for the caller to rename into the cache or remove. The
/// bytes are kept in memory too, so the caller, who verifies and checksums
/// them, need not read the file back. The file is written in pieces of
/// `flushSize` and at the end (`flush`), not per chunk libcurl hands over
/// (16 KiB each): a small image is one `write`. What is in the file is
/// always a prefix of the body, which is all a resume needs; a sink made
/// with `init()` keeps them only there, and so does one whose file cannot
/// be written (a full disk, an I/O error): the cache is an optimisation, and
/// a body that cannot go into it still reaches the caller.
final class BodySink {
    /// Where the body is written; empty for a sink in memory only.
    private(set) var path: String
    private var file: OpenFile?
    /// Why the file was given up for memory, if it was.
    private(set) var fileFailure: ImageCoreError?
    /// Bytes written by this transfer.
    private(set) var received = 0
    /// What this transfer wrote, in order.
    private(set) var bytes: [UInt8] = []
    /// How many of `bytes` are in the file.
    private var flushed = 0

    /// Bytes held back from the file at most: a body smaller than this is
    /// written with one call at the end. A resume record is written only
    /// after `flush`, so a killed process leaves a record and a prefix.
    static let flushSize = 256 * 1024

    /// A sink writing to `file` at its current offset.
    init(_ file: OpenFile) {
        self.file = file
        self.path = file.path
    }

    /// A sink keeping the body in memory only.
    init() {
        file = nil
        path = ""
    }

    /// A sink writing to a new private temporary file in `directory`.
    convenience init(temporaryIn directory: String) throws {
        let (fd, path) = try POSIXFile.createTemporary(in: directory, suffix: ".part")
        self.init(OpenFile(descriptor: fd, path: path))
    }

    /// Appends `chunk`, or throws: the body, with the `kept` bytes of an
    /// earlier transfer ahead of it, would pass `limit` bytes, or the write failed.
    func write(_ chunk: UnsafeRawBufferPointer, kept: Int, limit: Int) throws {
        guard kept + received + chunk.count <= limit else {
            throw ImageCoreError.over(.maxBytes, "body larger than the limit of \(limit) bytes")
        }
        grow(toHold: bytes.count + chunk.count)
        bytes.append(contentsOf: chunk)
        received += chunk.count
        if bytes.count - flushed >= Self.flushSize { try flush(kept: kept) }
    }

    /// Writes what the file does not have yet: before the body is handed
    /// over or kept for a resume, and before a resume record names it.
    /// Throws only for a resumed body (`kept` bytes ahead of it), whose
    /// first bytes are only in the file; any other body goes on in memory.
    func flush(kept: Int) throws {
        guard let file, flushed < bytes.count else { return }
        do {
            try bytes.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[flushed...])) }
            flushed = bytes.count
        } catch {
            guard kept == 0 else { throw error }
            giveUpFile(error as? ImageCoreError ?? ImageCoreError(.cacheIO, "\(error)"))
        }
    }

    /// The length the server announced (Content-Length), if it did: growth
    /// stops there rather than doubling past it. Never reserved up front: a
    /// server may announce a terabyte and send nothing, and memory must
    /// follow what arrived.
    private var announced: Int?

    /// Records the announced length of the body, for `grow` to stop at.
    func expect(_ expected: Int?) {
        if let expected, expected > 0 { announced = expected }
    }

    /// Makes room for `needed` bytes: at least 16 KiB, else doubling (so
    /// memory is at most twice what arrived); within an announced length,
    /// four times what arrived (and no further than the announcement),
    /// from the first bytes on: each growth copies the body so far, and
    /// doubling from 16 KiB copied 240 KiB for a 190 KiB image (a sixteenth
    /// of a cold batch's instructions), where quadrupling from 16 KiB copied
    /// 80 KiB, and quadrupling libcurl's first 16 KiB chunk copies 64 KiB
    /// (nothing for a body up to 64 KiB).
    private func grow(toHold needed: Int) {
        guard needed > bytes.capacity else { return }
        let withinAnnounced = announced.map { $0 >= needed } ?? false
        let grown = withinAnnounced ? 4 * max(bytes.capacity, needed) : 2 * bytes.capacity
        var target = max(needed, grown, Self.firstReserve)
        if let announced, withinAnnounced { target = min(target, announced) }
        bytes.reserveCapacity(target)
    }

    /// The first buffer: a small image's body in one piece, little for a stalled one.
    private static let firstReserve = 16 * 1024

    /// Goes on in memory: the file is closed and removed (with a resume
    /// record beside it, which would name bytes that are not there).
    private func giveUpFile(_ failure: ImageCoreError) {
        fileFailure = failure
        file?.close()
        file = nil
        PartialDownload.discard(path)
        path = ""
    }

    /// Names the finished body by its new path, after a rename.
    func moved(to newPath: String) { path = newPath }

    /// Whether the file is still open.
    var isOpen: Bool { file.map { $0.descriptor >= 0 } ?? false }

    /// Closes the file (once), releasing any lock on it.
    func close() { file?.close() }
}
