import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// A cache this process can read but not write (here a read-only bind
/// mount): `fetch` serves hits and still writes downloads to stdout, with
/// one line saying they were not cached and exit 0 (`--no-store`: not a
/// word); commands whose job is to write the cache stop with exit 8.
@Suite(.serialized, .enabled(if: MountNamespace.isAvailable, "needs root or user namespaces for a read-only mount"))
struct ReadOnlyCacheTests {
    @Test func fetchStreamsThroughAReadOnlyCache() throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory(), out = try TemporaryDirectory(), scratch = try TemporaryDirectory()
        let cached = Fixtures.tinyPNG + [UInt8](repeating: 1, count: 5_000)
        let fresh = Fixtures.tinyPNG + [UInt8](repeating: 2, count: 300_000)
        server.route("/cached.png", .ok(cached))
        server.route("/fresh.png", .ok(fresh))
        #expect(try CLI.run(["fetch", "-o", "/dev/null", server.url("/cached.png")], cacheDir: cache.path).status == 0)

        let result = try MountNamespace.run(
            """
            mount --bind "$CACHE" "$CACHE" && mount -o remount,bind,ro "$CACHE" || exit 90
            "$IMGCACHE" fetch -o "$OUT/hit" "$HIT" 2>"$OUT/hit.err"; echo "hit=$?"
            "$IMGCACHE" fetch "$NEW" > "$OUT/new" 2>"$OUT/new.err"; echo "new=$?"
            "$IMGCACHE" fetch --no-store "$NEW" > "$OUT/nostore" 2>"$OUT/nostore.err"; echo "nostore=$?"
            "$IMGCACHE" fetch --offline "$NEW" > /dev/null 2>&1; echo "offline=$?"
            echo "$NEW" | "$IMGCACHE" prefetch 2>"$OUT/prefetch.err"; echo "prefetch=$?"
            "$IMGCACHE" clean --max-age 1s > /dev/null 2>"$OUT/clean.err"; echo "clean=$?"
            "$IMGCACHE" purge "$HIT" 2>"$OUT/purge.err"; echo "purge=$?"
            "$IMGCACHE" stat -q "$HIT"; echo "stat=$?"
            """,
            environment: [
                "CACHE": cache.path, "OUT": out.path, "TMPDIR": scratch.path, "IMGCACHE_DIR": cache.path,
                "HIT": server.url("/cached.png"), "NEW": server.url("/fresh.png"),
            ])
        let values = result.values
        #expect(result.status == 0, "\(result.stderr)")
        func errors(_ name: String) -> String {
            (try? String(contentsOfFile: "\(out.path)/\(name).err", encoding: .utf8)) ?? ""
        }

        #expect(values["hit"] == "0", "\(errors("hit"))")
        #expect(errors("hit").isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/hit")) == Data(cached))

        #expect(values["new"] == "0", "\(errors("new"))")
        #expect(values["nostore"] == "0", "\(errors("nostore"))")
        #expect(errors("nostore").isEmpty, "--no-store asked for no cache: nothing to warn about")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/nostore")) == Data(fresh))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/new")) == Data(fresh),
            "the download was not streamed")
        let newError = errors("new")
        #expect(
            newError == "imgcache: \(server.url("/fresh.png")): written, but not cached: the cache is not writable "
                + "(\(cache.path)/tmp: Read-only file system)\n", "\(newError)")
        #expect(values["offline"] == "7")

        #expect(values["prefetch"] == "8")
        #expect(
            errors("prefetch")
                == "imgcache: cache \(cache.path): Read-only file system\n")
        #expect(values["clean"] == "8", "\(errors("clean"))")
        #expect(errors("clean").filter { $0 == "\n" }.count == 1)
        #expect(values["purge"] == "8", "\(errors("purge"))")
        #expect(errors("purge").filter { $0 == "\n" }.count == 1, "\(errors("purge"))")
        #expect(values["stat"] == "0")
        // The private download directory is gone, and nothing was stored.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
        #expect(try CLI.run(["stat", "-q", server.url("/fresh.png")], cacheDir: cache.path).status == 7)
        StressReport.record(
            "Read-only cache", how: "ReadOnlyCacheTests: read-only bind mount",
            outcome:
                "hit exit 0; miss streamed whole, exit 0, one line; prefetch, clean and purge exit 8; nothing stored")
    }
}
