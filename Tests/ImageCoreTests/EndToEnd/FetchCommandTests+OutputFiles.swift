import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `fetch -o` into what is already there: a device, a FIFO or a symbolic
/// link is written through, a file keeps its permissions.
extension FetchCommandTests {
    /// Regression: `-o /dev/null` used to rename a regular file over the device.
    @Test func outputThroughDevicesAndLinksKeepsThem() throws {
        server.route("/x.png", .ok(png))
        #expect(try fetch("-o", "/dev/null", server.url("/x.png")).status == 0)
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        let output = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: "\(output.path)/target.png", contents: Data("old".utf8)))
        try FileManager.default.createSymbolicLink(atPath: "\(output.path)/link.png", withDestinationPath: "target.png")
        #expect(try fetch("-o", "\(output.path)/link.png", server.url("/x.png")).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(output.path)/link.png") == "target.png")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(output.path)/target.png"))) == png)
        // Session 16 review: a link whose target does not exist yet was exit
        // 23, "cannot open LINK: No such file or directory"; the shell's `>`
        // and curl's -o create the target, and so does imgcache.
        try FileManager.default.createSymbolicLink(atPath: "\(output.path)/new.png", withDestinationPath: "made.png")
        let dangling = try fetch("-o", "\(output.path)/new.png", server.url("/x.png"))
        #expect(dangling.status == 0, "\(dangling.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(output.path)/new.png") == "made.png")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(output.path)/made.png"))) == png)
    }

    /// Session 16 review: `-o FILE` over a private 0600 file left a 0644
    /// one: the atomic replacement is a new file, made with the usual mode.
    /// curl's -o and the shell's > keep the file's permissions; so does imgcache.
    @Test func anOutputFileKeepsItsPermissions() throws {
        server.route("/x.png", .ok(png))
        let output = try TemporaryDirectory()
        for mode in [0o600, 0o640, 0o444] as [mode_t] {
            let path = "\(output.path)/kept-\(String(mode, radix: 8)).png"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            #expect(chmod(path, mode) == 0)
            let result = try fetch("-o", path, server.url("/x.png"))
            #expect(result.status == 0, "\(result.stderr)")
            var info = stat()
            #expect(
                stat(path, &info) == 0 && info.st_mode & 0o7777 == mode, "\(String(info.st_mode & 0o7777, radix: 8))")
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == png)
        }
    }
}
