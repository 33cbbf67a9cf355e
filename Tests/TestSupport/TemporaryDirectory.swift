import Foundation
import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A unique temporary directory, removed at deinit: keep the object for as
/// long as the directory is used (`cacheDir: try TemporaryDirectory().path`
/// removes it at once, and the process run on it makes a cache there that
/// nothing removes).
///
/// It is made in this test process's run directory (`TestRunDirectory`),
/// which a later run removes if this one is killed before its deinits run.
package final class TemporaryDirectory: Sendable {
    /// Its absolute path.
    package let path: String

    package init() throws {
        path = TestRunDirectory.newPath("")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The directory that holds every temporary directory and file a test
/// process makes (`$TMPDIR/imgcache-tests-PID-XXXXXX`), so that a killed
/// run leaves nothing a later one does not remove. A test process killed
/// with SIGKILL runs no deinit and no `atexit`: its directories (a
/// SeaweedFS server's data, logs and sockets, caches) stayed in /tmp.
///
/// Its owner holds an exclusive `flock` on its `owner` file for as long as
/// it lives; the kernel releases it however the process ends. The first
/// test process to make its own run directory removes each one whose lock
/// it can take (`removeAbandoned`): never a live run's, as two `swift test`
/// runs may run at once, and with no pid that can be reused. The lock is
/// taken on `owner.new` and the file then renamed to `owner`, so an
/// `owner` file is always locked by its maker first. Files a test's server
/// makes outside it (SeaweedFS's gRPC sockets, in /tmp whatever TMPDIR
/// says) are listed in `also-remove` (`removeWithRun`).
package enum TestRunDirectory {
    /// This process's run directory, made (and the abandoned ones removed)
    /// on first use; removed at a normal exit. `$TMPDIR` itself if it cannot
    /// be made (and the directories are then left as before).
    package static var path: String { made.path }

    /// A new, unused path in the run directory: `prefix` and a UUID.
    package static func newPath(_ prefix: String) -> String {
        "\(path)/\(prefix)\(UUID().uuidString)"
    }

    /// Records `paths`, files made outside the run directory for this run,
    /// to be removed with it by the run that removes it (sockets and other
    /// non-directories only: a directory listed is left).
    package static func removeWithRun(_ paths: [String]) {
        made.listLock.withLock { _ in
            guard let list = FileHandle(forWritingAtPath: "\(path)/\(alsoRemove)") else { return }
            defer { try? list.close() }
            _ = try? list.seekToEnd()
            list.write(Data(paths.map { "\($0)\n" }.joined().utf8))
        }
    }

    /// Removes every run directory in `parent` whose owner has gone (its
    /// `owner` lock is free), with the files listed in its `also-remove`.
    /// Returns the paths removed.
    @discardableResult
    package static func removeAbandoned(in parent: String = NSTemporaryDirectory()) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        var removed: [String] = []
        for name in names where name.hasPrefix(namePrefix) {
            let directory = (parent.hasSuffix("/") ? parent : parent + "/") + name
            // No `owner` file: being made now, or its maker killed in the
            // instant before the rename (left: an empty directory).
            let owner = open("\(directory)/owner", O_RDWR | O_CLOEXEC)
            guard owner >= 0 else { continue }
            defer { close(owner) }
            guard flock(owner, LOCK_EX | LOCK_NB) == 0 else { continue }
            let listed = (try? String(contentsOfFile: "\(directory)/\(alsoRemove)", encoding: .utf8)) ?? ""
            for file in listed.split(separator: "\n") {
                var status = stat()
                if lstat(String(file), &status) == 0, status.st_mode & S_IFMT != S_IFDIR { unlink(String(file)) }
            }
            try? FileManager.default.removeItem(atPath: directory)
            removed.append(directory)
        }
        return removed
    }

    static let namePrefix = "imgcache-tests-"
    private static let alsoRemove = "also-remove"

    /// The run directory, and the lock its `also-remove` list is written under.
    private final class Made: Sendable {
        let path: String
        let listLock = Mutex(())
        init(path: String) { self.path = path }
    }

    private static let made: Made = {
        let parent = NSTemporaryDirectory()
        removeAbandoned(in: parent)
        guard let path = makeLocked(in: parent) else { return Made(path: String(parent.dropLast())) }
        atexit { try? FileManager.default.removeItem(atPath: TestRunDirectory.path) }
        return Made(path: path)
    }()

    /// Makes a run directory in `parent` with its `owner` locked by this
    /// process; nil if it cannot.
    private static func makeLocked(in parent: String) -> String? {
        var template = Array("\(parent)\(namePrefix)\(getpid())-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkdtemp makes it 0700; 0755, as the directories made in /tmp
        // before were, so that a test may run imgcache as another user
        // inside it (ReadOnlyOutputTests runs it as nobody).
        guard chmod(path, 0o755) == 0 else {
            rmdir(path)
            return nil
        }
        let owner = open("\(path)/owner.new", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard owner >= 0 else { return nil }
        // Never closed: the lock lasts as long as the process.
        guard flock(owner, LOCK_EX) == 0, rename("\(path)/owner.new", "\(path)/owner") == 0,
            FileManager.default.createFile(atPath: "\(path)/\(alsoRemove)", contents: nil)
        else {
            close(owner)
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return path
    }
}
