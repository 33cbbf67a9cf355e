import Foundation

/// Runs reference tools (djpeg, cjpeg, ...) through /bin/sh for tests.
package enum Shell {
    /// The standard output of `command`; throws if it exits non-zero, so a
    /// missing or failing tool is an error rather than an empty image.
    package static func output(_ command: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return [UInt8](data)
    }
}
