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

    /// libheif, libjxl and libavif are loaded by their codecs themselves
    /// (not through `CodecLibrary`): a missing one was an error remembered on
    /// the failed list, so installing the library still left the URL refused
    /// (exit 6) for a day, and a missing encoder was exit 1 instead of 5.
    @Test(.enabled(if: HEIFSamples.toolsPresent && JXLSamples.missingTools == nil, "needs heif-enc and cjxl"))
    func aMissingLibheifLibjxlOrLibavifFailsOnlyThatImageAndIsNotRemembered() throws {
        let out = try TemporaryDirectory()
        server.route("/d.heic", .ok(try HEIFSamples.make(.lossy, in: out)))
        server.route("/e.jxl", .ok(try JXLSamples.bytes("lossy.jxl")))
        let (heic, jxl, jpeg) = (server.url("/d.heic"), server.url("/e.jxl"), server.url("/a.jpg"))
        let result = try MountNamespace.run(
            """
            for soname in libheif.so.1 'libjxl.so.[0-9.]*' 'libavif.so.[0-9]*'; do
                lib=$(ldconfig -p | awk -v re="^$soname\\$" '$1 ~ re { print $NF; exit }')
                [ -n "$lib" ] || exit 90
                mount --bind /dev/null "$(readlink -f "$lib")" || exit 91
            done
            "$IMGCACHE" fetch -o "$OUT/d" "$HEIC" 2>"$OUT/heic.err"; echo "heic=$?"
            "$IMGCACHE" fetch -o "$OUT/e" "$JXL" 2>"$OUT/jxl.err"; echo "jxl=$?"
            "$IMGCACHE" fetch --encode jxl -o "$OUT/a.jxl" "$JPEG" 2>"$OUT/encode-jxl.err"; echo "encodejxl=$?"
            "$IMGCACHE" fetch --encode avif -o "$OUT/a.avif" "$JPEG" 2>"$OUT/encode-avif.err"; echo "encodeavif=$?"
            """,
            environment: ["IMGCACHE_DIR": cache.path, "OUT": out.path, "HEIC": heic, "JXL": jxl, "JPEG": jpeg])
        #expect(result.status == 0, "\(result.stderr)")
        let values = result.values
        func errors(_ name: String) -> String {
            (try? String(contentsOfFile: "\(out.path)/\(name).err", encoding: .utf8)) ?? ""
        }
        for (name, url, prefix) in [
            ("heic", heic, "cannot decode HEIF: cannot load libheif (install libheif1): "),
            ("jxl", jxl, "cannot decode JPEG XL: cannot load libjxl (install libjxl"),
            ("encode-jxl", jpeg, "cannot encode JPEG XL: cannot load libjxl (install libjxl"),
            ("encode-avif", jpeg, "cannot encode AVIF: cannot load libavif (install libavif"),
        ] {
            let message = errors(name)
            #expect(values[name.replacingOccurrences(of: "-", with: "")] == "5", "\(name): \(message)")
            #expect(message.hasPrefix("imgcache: \(url): \(prefix)") && message.count(of: "\n") == 1, "\(message)")
        }

        // With the libraries back, both are fetched at once: never remembered as failed.
        let again = try fetch("--json", heic, jxl)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdoutLines.filter { $0.contains("\"result\":\"downloaded\"") }.count == 2, "\(again.stdoutText)")
    }
}

extension String {
    fileprivate func count(of character: Character) -> Int { filter { $0 == character }.count }
}
