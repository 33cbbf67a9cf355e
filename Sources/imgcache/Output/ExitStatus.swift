import ArgumentParser
import ImageCore

/// The documented exit statuses (man page, EXIT STATUS) and how errors map onto them.
enum ExitStatus {
    /// The status for one kind of error.
    static func code(for kind: ImageCoreError.Kind) -> Int32 {
        switch kind {
        case .failure: 1
        case .network: 3
        case .http: 4
        case .image: 5
        case .failedBefore: 6
        case .notCached: 7
        case .cacheIO: 8
        case .output: 23
        case .usage: 64
        case .interrupted: 130
        }
    }

    /// The status of a run: 0 if nothing failed, the shared kind's status if
    /// every failure is of one kind, 1 if they differ. An interruption wins.
    static func code(for failures: [ImageCoreError.Kind]) -> Int32 {
        if failures.contains(.interrupted) { return 130 }
        guard let first = failures.first else { return 0 }
        return failures.allSatisfy { $0 == first } ? code(for: first) : 1
    }

    /// Ends the command with `status` (nothing to do for 0).
    static func exit(_ status: Int32) throws {
        if status != 0 { throw ExitCode(status) }
    }
}

/// Runs a maintenance command's `body`; a failure is one line,
/// "imgcache: cache DIRECTORY: cause", and ends the command with its kind's status.
func reportingFailures(in directory: CacheDirectory, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let failure = ImageCoreError(reporting: error)
        StandardStreams.printError("imgcache: cache \(directory.root): \(failure.message)")
        try ExitStatus.exit(ExitStatus.code(for: failure.kind))
    }
}

/// "1 entry", "2 entries": a count with the noun in agreement.
func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
    "\(count) \(count == 1 ? singular : plural)"
}
