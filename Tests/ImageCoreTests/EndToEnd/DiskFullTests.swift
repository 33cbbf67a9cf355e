import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// A cache on a real, small file system (a tmpfs in a private mount
/// namespace) that runs out of space mid-download: `fetch` delivers the
/// image all the same (its body kept in memory) with one line saying it was
/// not cached, exit 0; `prefetch`, whose job is the cache, exits 8 with the
/// cause; nothing partial is left, whole entries are still served, and the
/// cache works again once space returns.
@Suite(.serialized, .enabled(if: MountNamespace.isAvailable, "needs root or user namespaces to mount a tmpfs"))
struct DiskFullTests {
    @Test func runningOutOfSpaceLeavesOnlyWholeEntriesAndRecovers() throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory(), out = try TemporaryDirectory()
        let images = (0..<20).map { index in
            Fixtures.tinyPNG + (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* (index + 1) &+ $0 >> 8) }
        }
        for (index, image) in images.enumerated() { server.route("/\(index).png", .ok(image)) }
        let big = Fixtures.tinyPNG + [UInt8](repeating: 7, count: 600_000)
        server.route("/big.png", .ok(big))
        let list = "\(out.path)/urls.txt"
        try Data(images.indices.map { server.url("/\($0).png") }.joined(separator: "\n").appending("\n").utf8)
            .write(to: URL(fileURLWithPath: list))

        // 2 MB of tmpfs, 1.7 MB of it taken by another file: room for about five images.
        let result = try MountNamespace.run(
            """
            mount -t tmpfs -o size=2m tmpfs "$CACHE" || exit 90
            head -c 1740800 /dev/zero > "$CACHE/filler"
            "$IMGCACHE" fetch --retries 0 -o "$OUT/big" "$BIG" 2>"$OUT/big.err"; echo "big=$?"
            "$IMGCACHE" prefetch -j 4 --retries 0 < "$LIST" 2>"$OUT/full.err"; echo "full=$?"
            echo "leftovers=$(find "$CACHE/tmp" -type f | wc -l)"
            n=0; while read -r url; do
                "$IMGCACHE" fetch --offline -o "$OUT/full-$n" "$url" 2>/dev/null; echo "full-$n=$?"; n=$((n+1))
            done < "$LIST"
            rm "$CACHE/filler"
            "$IMGCACHE" prefetch -q -j 4 < "$LIST" 2>"$OUT/after.err"; echo "after=$?"
            n=0; while read -r url; do
                "$IMGCACHE" fetch --offline -o "$OUT/after-$n" "$url" 2>/dev/null; echo "after-$n=$?"; n=$((n+1))
            done < "$LIST"
            "$IMGCACHE" stat --json > "$OUT/stat.json"; echo "stat=$?"
            """,
            environment: [
                "CACHE": cache.path, "IMGCACHE_DIR": cache.path, "OUT": out.path, "LIST": list,
                "BIG": server.url("/big.png"),
            ])
        let values = result.values
        #expect(result.status == 0, "\(result.stderr)")

        func errors(_ name: String) -> String {
            (try? String(contentsOfFile: "\(out.path)/\(name).err", encoding: .utf8)) ?? ""
        }
        let bigError = errors("big")
        #expect(values["big"] == "0", "\(bigError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/big")) == Data(big), "not delivered whole")
        #expect(
            bigError.hasPrefix("imgcache: \(server.url("/big.png")): written, but not cached: ")
                && bigError.contains("No space left on device") && bigError.filter { $0 == "\n" }.count == 1,
            "\(bigError)")
        #expect(values["full"] == "8", "\(errors("full"))")
        #expect(values["leftovers"] == "0")

        // While full: what is served is whole; what is not is a clean miss.
        var servedWhileFull = 0
        for index in images.indices {
            switch values["full-\(index)"] {
            case "0":
                servedWhileFull += 1
                #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/full-\(index)")) == Data(images[index]))
            case "7": break
            case let other: Issue.record("offline fetch of image \(index) while full: exit \(other ?? "none")")
            }
        }
        #expect(servedWhileFull > 0 && servedWhileFull < images.count, "\(servedWhileFull) served")

        // With room again, everything is fetched and served whole.
        #expect(values["after"] == "0", "\(errors("after"))")
        for index in images.indices {
            #expect(values["after-\(index)"] == "0")
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/after-\(index)")) == Data(images[index]))
        }
        let stat = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: "\(out.path)/stat.json")))
        #expect((stat as? [String: Any])?["entries"] as? Int == images.count)
        StressReport.record(
            "Disk full (2 MB tmpfs)",
            how: "DiskFullTests: fetch and prefetch -j 4 into a full cache, then space returns",
            outcome:
                "exit \(values["big"] ?? "?")/\(values["full"] ?? "?"), \(values["leftovers"] ?? "?") partial files, "
                + "\(servedWhileFull) whole entries served while full, all \(images.count) after")
    }
}
