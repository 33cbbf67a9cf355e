/// The verification step: every body that is about to be stored or served
/// (a download, a remote entry) is sniffed once and checked by its format's
/// decoder — header against the limits, structure to its end — so a
/// truncated or corrupt body is never cached.
struct Verification: Sendable {
    /// Bodies up to this size are checked where they are, on the
    /// cooperative pool: well under a millisecond of work, where the hop to
    /// Dispatch's pool and back cost two thread wake-ups per download.
    static let inlineLimit = 256 * 1024

    let decoder: any ImageDecoding

    /// Verifies `bytes`; a large body off the cooperative thread pool (the
    /// checks run C decoders over the whole body). Throws `.image` errors.
    func callAsFunction(_ bytes: [UInt8]) async throws -> ImageInfo {
        let decoder = self.decoder
        if bytes.count <= Self.inlineLimit { return try decoder.inspect(bytes) }
        return try await runInBackground { try decoder.inspect(bytes) }
    }
}
