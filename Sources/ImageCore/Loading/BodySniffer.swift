/// Checks that a body which must be an image starts like one, as its first
/// bytes arrive, so a wrong body (an HTML page, an unsupported format) stops
/// the transfer early instead of downloading in full.
struct BodySniffer {
    private var head: [UInt8] = []
    /// Whether the verdict is in (or the check was skipped).
    private(set) var isDone = false

    /// Takes the next body bytes; returns the problem once enough bytes show one.
    mutating func take(_ chunk: UnsafeRawBufferPointer) -> ImageCoreError? {
        guard !isDone else { return nil }
        head += chunk.prefix(ImageFormat.sniffLength - head.count)
        guard head.count >= ImageFormat.sniffLength else { return nil }
        isDone = true
        return Self.problem(head)
    }

    /// Skips the check: the first bytes were checked by an earlier transfer
    /// of a resumed body.
    mutating func skip() { isDone = true }

    /// The problem with a whole body too short to have been judged while it arrived.
    func problemAtEnd() -> ImageCoreError? {
        isDone ? nil : Self.problem(head)
    }

    private static func problem(_ head: [UInt8]) -> ImageCoreError? {
        switch ImageFormat.sniff(head) {
        case .supported: nil
        case .unsupported(let name): ImageCoreError(.image, "unsupported image format (\(name))")
        case .notAnImage(let what): ImageCoreError(.image, what)
        }
    }
}
