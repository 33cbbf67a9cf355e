import Foundation

@testable import ImageCore

/// An entry's record as tests read and damage it, wherever the cache keeps
/// it: the attribute of the entry's file, or its `.meta` file.
struct StoredRecord {
    let directory: CacheDirectory
    let hash: String

    init(_ directory: CacheDirectory, _ key: CacheKey) {
        self.directory = directory
        hash = key.hash
    }

    /// The record's bytes.
    func read() throws -> [UInt8] {
        switch directory.recordPlacement() {
        case .attributes:
            guard case .value(let bytes) = ExtendedAttribute.read(RecordPlacement.recordName, path: path) else {
                throw CocoaError(.fileReadNoSuchFile)
            }
            return bytes
        case .files:
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// Replaces the record's bytes in place (the entry's modification time changes).
    func write(_ bytes: [UInt8]) throws {
        switch directory.recordPlacement() {
        case .attributes: try ExtendedAttribute.write(RecordPlacement.recordName, bytes, path: path)
        case .files: try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// The file that makes the entry reachable: the entry's file, or its record.
    var path: String {
        directory.recordPlacement() == .attributes ? directory.entryPath(hash) : directory.metadataPath(hash)
    }

    /// Whether that file exists.
    var exists: Bool { FileManager.default.fileExists(atPath: path) }
}
