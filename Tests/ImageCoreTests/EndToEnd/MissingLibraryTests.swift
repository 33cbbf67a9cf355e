import Foundation
import TestSupport
import Testing

/// Issue 34: a codec library that cannot be loaded is the error of the
/// image that needed it (one line naming the URL and the library, exit 5),
/// not the end of the process: the other URLs of a run are still delivered,
/// and nothing is remembered on the failed list. giflib is hidden from the
/// dynamic loader by an empty file bound over it in a private mount namespace.
@Suite(.serialized, .enabled(if: MountNamespace.isAvailable, "needs root or user namespaces to hide a library"))
struct MissingLibraryTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.jpg", .ok(try Fixtures.bytes("baseline.jpg")))
        server.route("/b.gif", .ok(try Fixtures.bytes("anim3.gif")))
        server.route("/c.png", .ok(try Fixtures.bytes("rgba.png")))
    }

    @Test func aMissingGiflibFailsOnlyTheGIF() throws {
        let out = try TemporaryDirectory()
        let (jpeg, gif, png) = (server.url("/a.jpg"), server.url("/b.gif"), server.url("/c.png"))
        let list = "\(out.path)/urls.txt"
        try Data("\(jpeg)\n\(gif)\n\(png)\n".utf8).write(to: URL(fileURLWithPath: list))
        let result = try MountNamespace.run(
            """
            lib=$(ldconfig -p | awk '/libgif\\.so\\.7 / { print $NF; exit }')
            [ -n "$lib" ] || exit 90
            mount --bind /dev/null "$(readlink -f "$lib")" || exit 91
            "$IMGCACHE" prefetch -j 2 < "$LIST" 2>"$OUT/prefetch.err"; echo "prefetch=$?"
            "$IMGCACHE" fetch --offline -o "$OUT/a" "$JPEG" 2>/dev/null; echo "jpeg=$?"
            "$IMGCACHE" fetch --offline -o "$OUT/c" "$PNG" 2>/dev/null; echo "png=$?"
            "$IMGCACHE" fetch --encode gif -o "$OUT/c.gif" "$PNG" 2>"$OUT/encode.err"; echo "encode=$?"
            "$IMGCACHE" fetch -o "$OUT/b" "$GIF" 2>"$OUT/fetch.err"; echo "fetch=$?"
            """,
            environment: [
                "IMGCACHE_DIR": cache.path, "OUT": out.path, "LIST": list, "JPEG": jpeg, "GIF": gif, "PNG": png,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let values = result.values
        func errors(_ name: String) -> String {
            (try? String(contentsOfFile: "\(out.path)/\(name).err", encoding: .utf8)) ?? ""
        }
        let prefetch = errors("prefetch")
        #expect(values["prefetch"] == "5", "\(prefetch)")
        #expect(
            prefetch.hasPrefix("imgcache: \(gif): cannot decode GIF: cannot load giflib (install libgif7): "),
            "\(prefetch)")
        #expect(prefetch.contains("3 URLs: 2 downloaded, 0 already cached"), "\(prefetch)")
        #expect(values["jpeg"] == "0" && values["png"] == "0", "\(values)")
        let fetched = errors("fetch")
        #expect(values["fetch"] == "5", "\(fetched)")
        #expect(
            fetched.hasPrefix("imgcache: \(gif): cannot decode GIF: cannot load giflib") && fetched.count(of: "\n") == 1
        )
        let encode = errors("encode")
        #expect(values["encode"] == "5", "\(encode)")
        #expect(
            encode.hasPrefix("imgcache: \(png): cannot encode GIF: cannot load giflib") && encode.count(of: "\n") == 1)

        // With giflib back, the GIF is fetched at once: never remembered as failed.
        let again = try fetch(gif)
        let original = try Fixtures.bytes("anim3.gif")
        #expect(again.status == 0 && again.stdout == original, "\(again.stderr)")
    }
}

extension String {
    fileprivate func count(of character: Character) -> Int { filter { $0 == character }.count }
}
