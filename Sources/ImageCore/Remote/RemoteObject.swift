/// What a remote storage holds for one entry: a header line naming the
/// layout version and the record's length, the entry's record (the same
/// text the disk cache writes, serialized by `CacheEntry`), then the
/// image's original bytes.
///
///     imgcache-remote 1 <record length>\n<record><bytes>
enum RemoteObject {
    /// Part of every object name and of the header; bumped when the layout
    /// or the record format changes, so old objects are simply not found.
    static let layoutVersion = 1

    private static let magic = "imgcache-remote \(layoutVersion) "

    /// The object for `entry` and its bytes.
    static func encode(_ entry: CacheEntry, bytes: [UInt8]) -> [UInt8] {
        let record = entry.serialized()
        return Array("\(magic)\(record.count)\n".utf8) + record + bytes
    }

    /// The record and bytes in `object`; nil if it is not a whole object
    /// of this layout (the checks against the key and checksum come after).
    static func decode(_ object: [UInt8]) -> (entry: CacheEntry, bytes: [UInt8])? {
        guard let newline = object.prefix(64).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: object[..<newline], as: UTF8.self)
        guard header.hasPrefix(magic), let length = Int(header.dropFirst(magic.count)), length > 0,
            object.count - newline - 1 >= length
        else { return nil }
        let recordEnd = newline + 1 + length
        guard let entry = CacheEntry(parsing: Array(object[(newline + 1)..<recordEnd])) else { return nil }
        return (entry, Array(object[recordEnd...]))
    }
}
