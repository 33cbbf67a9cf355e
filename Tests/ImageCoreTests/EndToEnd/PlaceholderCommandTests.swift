import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `--placeholder` through the built binary: the three fields in `fetch`,
/// `prefetch` and `stat URL` records, computed once and kept with the
/// entry, so a warm run decodes nothing (it loads no codec library).
@Suite(.serialized) struct PlaceholderCommandTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    /// The `--placeholder` fields of a JSON record, in order.
    private func fields(_ record: String) -> [String] {
        ["thumbhash", "blurhash", "dominant_color"].compactMap { name in
            guard let start = record.range(of: "\"\(name)\":\"") else { return nil }
            return String(record[start.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test func recordsCarryPlaceholdersComputedOnce() throws {
        let png = try Fixtures.bytes("rgba.png")
        server.route("/p.png", .ok(png, headers: ["Cache-Control": "max-age=600"]))
        let cold = try fetch("--json", "--placeholder", server.url("/p.png"))
        #expect(cold.status == 0, "\(cold.stderr)")
        let made = fields(cold.stdoutText)
        #expect(made.count == 3, "\(cold.stdoutText)")
        // What the library computes from the same pixels.
        let expected = try PlaceholderStore.compute(png, limits: .default)
        #expect(made == [expected.thumbHash, expected.blurHash, expected.dominantColour])
        // Kept in the entry's record (no variant file): stat reads it back.
        let stat = try run("stat", "--json", "--placeholder", server.url("/p.png"))
        #expect(!stat.stdoutText.contains(#""transform""#), "\(stat.stdoutText)")
        #expect(fields(stat.stdoutText) == made)
        let warm = try fetch("--json", "--placeholder", server.url("/p.png"))
        #expect(fields(warm.stdoutText) == made)
        let list = Array("\(server.url("/p.png"))\n".utf8)
        let prefetched = try run(["prefetch", "--json", "--placeholder"], stdin: list)
        #expect(fields(prefetched.stdoutText) == made, "\(prefetched.stdoutText)")
        #expect(server.requestCount(for: "/p.png") == 1)
        // Without --placeholder, no fields; without --json, a usage error.
        #expect(fields(try fetch("--json", server.url("/p.png")).stdoutText).isEmpty)
        #expect(try fetch("--placeholder", server.url("/p.png")).status == 64)
        #expect(try run("stat", "--placeholder", server.url("/p.png")).status == 64)
    }

    @Test func aWarmRunDecodesNothing() throws {
        // A PNG decode loads libpng: a warm run with kept placeholders must not.
        server.route("/w.png", .ok(try Fixtures.bytes("rgba.png"), headers: ["Cache-Control": "max-age=600"]))
        let list = Array("\(server.url("/w.png"))\n".utf8)
        let cold = try run(["prefetch", "--json", "--placeholder"], stdin: list, environment: ["LD_DEBUG": "libs"])
        #expect(cold.status == 0 && cold.stderr.contains("libpng16.so"), "a cold run decodes (LD_DEBUG=libs)")
        let warm = try run(["prefetch", "--json", "--placeholder"], stdin: list, environment: ["LD_DEBUG": "libs"])
        #expect(warm.status == 0 && fields(warm.stdoutText).count == 3)
        #expect(!warm.stderr.contains("libpng16.so"), "a warm run read its placeholders back without decoding")
    }
}
