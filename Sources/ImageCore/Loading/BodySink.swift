/// The file a transfer's body streams into, written as the bytes arrive,
/// after a check against the size limit. Closing it (or dropping it) closes
/// the file; the file's name outlives it, for the caller to rename into the
/// cache or remove. The bytes are kept in memory too, so the caller, who
/// verifies and checksums them, need not read the file back.
final class BodySink {
    /// Where the body is written.
    private(set) var path: String
    private let file: OpenFile
    /// Bytes written by this transfer.
    private(set) var received = 0
    /// What this transfer wrote, in order.
    private(set) var bytes: [UInt8] = []

    /// A sink writing to `file` at its current offset.
    init(_ file: OpenFile) {
        self.file = file
        self.path = file.path
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
        if received == 0 { bytes.reserveCapacity(chunk.count) }
        try file.write(chunk)
        bytes.append(contentsOf: chunk)
        received += chunk.count
    }

    /// Makes room for a body of `expected` bytes (Content-Length), up to `limit`.
    func expect(_ expected: Int?, limit: Int) {
        if let expected, expected > 0 { bytes.reserveCapacity(min(expected, limit)) }
    }

    /// Names the finished body by its new path, after a rename.
    func moved(to newPath: String) { path = newPath }

    /// Whether the file is still open.
    var isOpen: Bool { file.descriptor >= 0 }

    /// Closes the file (once), releasing any lock on it.
    func close() { file.close() }
}
