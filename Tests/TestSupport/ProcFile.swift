import Foundation

/// The whole text of a /proc file, read to its end. Why: a /proc file
/// says its size is 0, and `String(contentsOfFile:)` and `Data(contentsOf:)`
/// then read one page of it (4 050 bytes of /proc/net/tcp, 27 sockets):
/// a listener or lock listed further down, on a machine busy with the
/// parallel suites' sockets, was never seen ("nothing listens on PORT"
/// after `waitPatience`). `readDataToEndOfFile` reads until EOF.
package func procFileText(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
}
