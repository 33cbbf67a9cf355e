import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `delays_ms` through the built binary: in the record of a download, of a
/// warm hit (read back from the entry's record) and of `stat URL`; never
/// for a still image.
@Suite(.serialized) struct FrameDelayCommandTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    /// The `delays_ms` array of a JSON record, if present.
    private func delays(_ record: String) -> String? {
        guard let start = record.range(of: #""delays_ms":["#) else { return nil }
        return String(record[start.upperBound...].prefix { $0 != "]" })
    }

    @Test func downloadsWarmHitsAndStatShowTheDelays() throws {
        let gif = try Fixtures.bytes("anim3.gif")
        let expected = try ImageDecoder().inspect(gif).frameDurations.map(String.init).joined(separator: ",")
        #expect(!expected.isEmpty)
        server.route("/a.gif", .ok(gif, headers: ["Cache-Control": "max-age=600"]))
        server.route("/s.png", .ok(try Fixtures.bytes("rgba.png"), headers: ["Cache-Control": "max-age=600"]))
        let cold = try fetch("--json", server.url("/a.gif"))
        #expect(cold.status == 0 && delays(cold.stdoutText) == expected, "\(cold.stdoutText)")
        let warm = try fetch("--json", server.url("/a.gif"))
        #expect(warm.stdoutText.contains(#""result":"disk""#) && delays(warm.stdoutText) == expected)
        let stat = try run("stat", "--json", server.url("/a.gif"))
        #expect(delays(stat.stdoutText) == expected, "\(stat.stdoutText)")
        #expect(server.requestCount(for: "/a.gif") == 1)
        let still = try fetch("--json", server.url("/s.png"))
        #expect(still.status == 0 && !still.stdoutText.contains("delays_ms"))
    }
}
