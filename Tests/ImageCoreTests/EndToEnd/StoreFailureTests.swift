import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Issue 35, class 1: a cache is an optimisation, it never stops delivery.
/// `fetch` writes what it cannot store, says so in one line and exits 0;
/// `prefetch`, whose job is the cache, exits 8; `--no-store` creates and
/// changes no file of the cache at all.
@Suite(.serialized) struct StoreFailureTests: CommandSuite {
    let fixture: CommandFixture
    let image = Fixtures.tinyPNG + [UInt8](repeating: 3, count: 20_000)

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(image))
        server.route("/b.png", .ok(Fixtures.tinyPNG))
        server.route("/gone.png", .status(404))
    }

    /// Every file under `root` with its size and modification time.
    func snapshot(_ root: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return try walker.compactMap { $0 as? String }.sorted().map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(root)/\(path)")
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(path) \(attributes[.size] ?? 0) \(modified)"
        }
    }

    @Test func noStoreCreatesAndChangesNoCacheFile() throws {
        let missing = "\(cache.path)/never-made"
        let first = try CLI.run(["fetch", "--no-store", server.url("/a.png")], cacheDir: missing)
        #expect(first.status == 0 && first.stdout == image, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing), "--no-store made the cache directory")

        #expect(try fetch("-o", "/dev/null", server.url("/b.png")).status == 0)
        let before = try snapshot(cache.path)
        // Past the minute within which a hit is not marked used again.
        let stale = Date().addingTimeInterval(-3600)
        for file in try snapshot(cache.path).map({ String($0.split(separator: " ")[0]) }) {
            try FileManager.default.setAttributes([.modificationDate: stale], ofItemAtPath: "\(cache.path)/\(file)")
        }
        let aged = try snapshot(cache.path)
        let runs = [
            try fetch("--no-store", server.url("/b.png")),  // a disk hit
            try fetch("--no-store", server.url("/a.png")),  // a download
            try fetch("--no-store", "--refresh", server.url("/b.png")),  // a revalidation
            try fetch("--no-store", server.url("/gone.png")),  // a failure
        ]
        #expect(runs.map(\.status) == [0, 0, 0, 4], "\(runs.map(\.stderr))")
        #expect(runs[1].stdout == image && runs[1].stderr.isEmpty)
        #expect(try snapshot(cache.path) == aged, "a cache file was created or changed (before aging: \(before))")
        #expect(try fetch("--offline", server.url("/gone.png")).status == 7, "the failure was not remembered")
    }

    @Test(.enabled(if: MountNamespace.isAvailable, "needs root or user namespaces for a read-only mount"))
    func anUnwritableEntriesFolderStopsPrefetchButNotFetch() throws {
        let out = try TemporaryDirectory()
        #expect(try fetch("-o", "/dev/null", server.url("/b.png")).status == 0)
        let result = try MountNamespace.run(
            """
            mount --bind "$CACHE/entries" "$CACHE/entries" && mount -o remount,bind,ro "$CACHE/entries" || exit 90
            "$IMGCACHE" fetch "$NEW" > "$OUT/new" 2>"$OUT/new.err"; echo "new=$?"
            "$IMGCACHE" fetch -o "$OUT/hit" "$HIT" 2>"$OUT/hit.err"; echo "hit=$?"
            echo "$NEW" | "$IMGCACHE" prefetch 2>"$OUT/prefetch.err"; echo "prefetch=$?"
            echo "leftovers=$(find "$CACHE/tmp" -type f | wc -l)"
            """,
            environment: [
                "CACHE": cache.path, "IMGCACHE_DIR": cache.path, "OUT": out.path,
                "NEW": server.url("/a.png"), "HIT": server.url("/b.png"),
            ])
        let values = result.values
        #expect(result.status == 0, "\(result.stderr)")
        func errors(_ name: String) -> String {
            (try? String(contentsOfFile: "\(out.path)/\(name).err", encoding: .utf8)) ?? ""
        }
        #expect(values["new"] == "0", "\(errors("new"))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/new")) == Data(image))
        let warning = errors("new")
        // The rename into the read-only mount fails (EXDEV across the bind mount, or EROFS).
        #expect(
            warning.hasPrefix("imgcache: \(server.url("/a.png")): written, but not cached: cannot ")
                && warning.filter { $0 == "\n" }.count == 1, "\(warning)")
        #expect(values["hit"] == "0" && errors("hit").isEmpty, "\(errors("hit"))")
        #expect(values["prefetch"] == "8", "\(errors("prefetch"))")
        #expect(errors("prefetch").hasPrefix("imgcache: \(server.url("/a.png")): cannot "), "\(errors("prefetch"))")
        #expect(values["leftovers"] == "0")
        #expect(try run("stat", "-q", server.url("/a.png")).status == 7, "nothing was stored")
    }
}
