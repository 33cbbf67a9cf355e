/// The verification step: every body that is about to be stored or served
/// (a download, a remote entry) is sniffed once and checked by its format's
/// decoder — header against the limits, structure to its end — so a
/// truncated or corrupt body is never cached.
extension ImageManager {
    /// Verifies `bytes` off the cooperative thread pool (the checks run C
    /// decoders over the whole body). Throws `.image` errors.
    func verify(_ bytes: [UInt8]) async throws -> ImageInfo {
        let decoder = self.decoder
        return try await runInBackground { try decoder.inspect(bytes) }
    }
}
