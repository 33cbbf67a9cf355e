import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 35: a cache never stops delivery, reading included. An entry that
/// cannot be read (an I/O error, a file that cannot be opened) is a miss:
/// `fetch` delivers from the network with one line saying so, exit 0, and
/// the download replaces the entry. `fetch --path` of an image the cache
/// could not keep is one line naming the cause, exit 8: the path is what
/// was asked.
@Suite(.serialized) struct CacheReadFailureTests: CommandSuite {
    let fixture: CommandFixture
    let image = Fixtures.tinyPNG + [UInt8](repeating: 5, count: 30_000)

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(image))
    }

    /// The entry's file, as `--path` prints it.
    func entryPath(_ url: String) throws -> String {
        let printed = try fetch("--offline", "--path", url)
        #expect(printed.status == 0, "\(printed.stderr)")
        return printed.stdoutText.trimmingCharacters(in: .newlines)
    }

    /// open(2) of a symbolic link to itself fails (ELOOP) however
    /// privileged the caller: an entry that cannot be opened, on any machine.
    @Test func anEntryThatCannotBeOpenedIsAMissDeliveredWithOneLine() throws {
        let url = server.url("/a.png")
        #expect(try fetch("-o", "/dev/null", url).status == 0)
        let entry = try entryPath(url)
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: entry)

        let offline = try fetch("--offline", url)
        #expect(offline.status == 7, "\(offline.stderr)")
        #expect(
            offline.stderr.hasPrefix("imgcache: \(url): ") && offline.stderr.contains("could not be read")
                && offline.stderr.contains("Too many levels of symbolic links")
                && offline.stderr.filter { $0 == "\n" }.count == 1,
            "\(offline.stderr)")

        let before = server.requestCount(for: "/a.png")
        let fetched = try fetch(url)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == image, "not delivered whole")
        #expect(
            fetched.stderr
                == "imgcache: \(url): the cached copy could not be read, fetched again: cannot open \(entry): "
                + "Too many levels of symbolic links\n")
        #expect(server.requestCount(for: "/a.png") == before + 1)
        // The download replaced the entry: served again, without a word.
        let again = try fetch("--offline", url)
        #expect(again.status == 0 && again.stdout == image && again.stderr.isEmpty, "\(again.stderr)")
    }

    /// A disk whose blocks under an entry fail (a loop device cut short
    /// beneath a mounted ext4): read(2) itself returns EIO.
    @Test(.enabled(if: FailingDisk.isAvailable, "needs root, loop devices, mkfs.ext4 and filefrag for a failing disk"))
    func aReadErrorIsAMissDeliveredWithOneLine() throws {
        let url = server.url("/a.png")
        let out = try TemporaryDirectory()
        let result = try MountNamespace.run(
            FailingDisk.mountScript + """
                "$IMGCACHE" fetch -o "$OUT/first" "$URL"; echo "first=$?"
                entry=$("$IMGCACHE" fetch --offline --path "$URL")
                cut_under "$entry"
                cat "$entry" > /dev/null 2>&1 && echo "read=ok" || echo "read=failed"
                "$IMGCACHE" fetch -o "$OUT/second" "$URL" 2>"$OUT/second.err"; echo "second=$?"
                "$IMGCACHE" fetch --offline -o "$OUT/third" "$URL" 2>"$OUT/third.err"; echo "third=$?"
                echo "entry=$entry"
                """,
            environment: ["IMGCACHE_DIR": "\(out.path)/cache", "OUT": out.path, "URL": url])
        let values = result.values
        #expect(result.status == 0, "\(result.stderr)")
        #expect(values["first"] == "0" && values["read"] == "failed", "\(values) \(result.stderr)")
        let second = (try? String(contentsOfFile: "\(out.path)/second.err", encoding: .utf8)) ?? ""
        #expect(values["second"] == "0", "\(second)")
        #expect(
            second == "imgcache: \(url): the cached copy could not be read, fetched again: cannot read "
                + "\(values["entry"] ?? "?"): Input/output error\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/second")) == Data(image))
        // The download replaced the entry (new blocks, below the cut).
        #expect(values["third"] == "0", "\(values)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out.path)/third")) == Data(image))
    }

    /// The path is what was asked: an image the cache could not keep has
    /// none to print, and nothing is left behind to pretend otherwise.
    @Test(.enabled(if: MountNamespace.isAvailable, "needs root or user namespaces for a read-only mount"))
    func pathOfAnImageNotStoredIsOneLineExit8() throws {
        let url = server.url("/a.png")
        let out = try TemporaryDirectory()
        let result = try MountNamespace.run(
            """
            mkdir -p "$CACHE/entries"
            mount --bind "$CACHE/entries" "$CACHE/entries" || exit 90
            mount -o remount,bind,ro "$CACHE/entries" || exit 91
            "$IMGCACHE" fetch --path "$URL" >"$OUT/path.out" 2>"$OUT/path.err"; echo "path=$?"
            """,
            environment: ["CACHE": cache.path, "IMGCACHE_DIR": cache.path, "OUT": out.path, "URL": url])
        #expect(result.status == 0, "\(result.stderr)")
        let errors = (try? String(contentsOfFile: "\(out.path)/path.err", encoding: .utf8)) ?? ""
        let printed = (try? String(contentsOfFile: "\(out.path)/path.out", encoding: .utf8)) ?? "?"
        #expect(result.values["path"] == "8", "\(errors)")
        #expect(printed.isEmpty)
        #expect(
            errors.hasPrefix("imgcache: \(url): no path to print: not cached: ")
                && errors.contains("Read-only file system") && errors.filter { $0 == "\n" }.count == 1,
            "\(errors)")
    }
}

/// An ext4 file system on a loop device, in a private mount namespace, that
/// can be cut short beneath a file: reads of that file's blocks then fail
/// with EIO (the block layer refuses I/O past a device's end), while the
/// inode, its attributes and the directories stay readable. `mount -o loop`
/// sets autoclear: the device is freed when the namespace, and with it the
/// mount, goes away, however the test ends.
enum FailingDisk {
    /// Mounts an 8 MiB ext4 (no journal, 1 KiB blocks) at `$IMGCACHE_DIR`
    /// and defines `cut_under FILE`.
    static let mountScript = """
        img="$OUT/disk.img"
        truncate -s 8M "$img"
        mkfs.ext4 -q -F -O ^has_journal -b 1024 "$img"
        mkdir -p "$IMGCACHE_DIR"
        mount -o loop "$img" "$IMGCACHE_DIR" || exit 90
        cut_under() {
            sync
            start=$(filefrag -v "$1" | awk '$1 == "0:" { print $4 }' | tr -d .)
            dd if="$1" iflag=nocache count=0 status=none
            truncate -s $((start * 1024)) "$img"
            losetup -c "$(losetup -j "$img" | cut -d: -f1)"
        }

        """

    /// Whether this machine can: root (loop devices), and the tools.
    static let isAvailable: Bool = {
        guard geteuid() == 0, MountNamespace.isAvailable,
            ["/usr/sbin/mkfs.ext4", "/usr/sbin/filefrag", "/usr/sbin/losetup"].allSatisfy({
                FileManager.default.isExecutableFile(atPath: $0)
            }),
            let scratch = try? TemporaryDirectory()
        else { return false }
        let probe = try? MountNamespace.run(
            mountScript + "umount \"$IMGCACHE_DIR\"",
            environment: ["OUT": scratch.path, "IMGCACHE_DIR": "\(scratch.path)/mnt"])
        return probe?.status == 0
    }()
}
