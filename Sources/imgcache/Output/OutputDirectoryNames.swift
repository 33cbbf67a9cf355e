import ImageCore

/// The file names `fetch --output-dir` gives (man page, fetch): each URL's
/// last path segment, percent-decoded and made safe (`/` and control
/// characters become `_`, at most 200 bytes), with the format's extension in
/// place of an image extension it had. Where the segment is empty, or where
/// two URLs of the run would get one name, the cache key's hash is the name
/// instead, so no file overwrites another's. Decided before any image is
/// written, from the URLs alone, so a name does not depend on which
/// download finished first.
struct OutputDirectoryNames {
    /// The longest name, in bytes (most file systems allow 255).
    static let maxBytes = 200
    /// Extensions replaced by the format's own (`a.jpeg` is written `a.jpg`,
    /// `a.png --decode ppm` `a.ppm`): they would only mislead.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "apng", "gif", "webp", "avif", "heic", "heif", "jxl", "pam", "ppm",
    ]

    /// Each URL's stem, or nil where the key names its file.
    private let stems: [String?]

    /// Names for `urls`, whose cache keys are `keys`.
    init(urls: [String], keys: [CacheKey]) {
        let candidates = urls.map(Self.stem)
        // Compared without case: the directory may be on a file system that ignores it.
        var owners: [String: String] = [:]
        var shared: Set<String> = []
        for (candidate, key) in zip(candidates, keys) {
            guard let folded = candidate?.lowercased() else { continue }
            if let owner = owners[folded], owner != key.hash {
                shared.insert(folded)
            } else {
                owners[folded] = key.hash
            }
        }
        stems = candidates.map { candidate in candidate.flatMap { shared.contains($0.lowercased()) ? nil : $0 } }
    }

    /// The file name for URL `index`, written with `fileExtension`.
    func name(index: Int, key: CacheKey, fileExtension: String) -> String {
        guard let stem = stems[index] else { return "\(key.hash).\(fileExtension)" }
        var kept = ""
        var size = 0
        for scalar in stem.unicodeScalars {
            size += String(scalar).utf8.count
            if size > Self.maxBytes - 1 - fileExtension.utf8.count { break }
            kept.unicodeScalars.append(scalar)
        }
        return "\(kept).\(fileExtension)"
    }

    /// The URL's last path segment, decoded and made safe, without an image
    /// extension; nil if nothing usable is left.
    static func stem(_ url: String) -> String? {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let afterScheme = text[text.index(colon, offsetBy: 3)...]
        guard let pathStart = afterScheme.firstIndex(of: "/") else { return nil }
        let segment = afterScheme[pathStart...].split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        var safe = String(
            decoding: PercentDecoding.decoded(ArraySlice(segment.utf8)).map {
                $0 < 0x20 || $0 == 0x7F || $0 == 0x2F ? 0x5F : $0
            },
            as: UTF8.self)
        if let dot = safe.lastIndex(of: "."), imageExtensions.contains(safe[safe.index(after: dot)...].lowercased()) {
            safe = String(safe[..<dot])
        }
        return safe.isEmpty || safe == "." || safe == ".." ? nil : safe
    }
}
