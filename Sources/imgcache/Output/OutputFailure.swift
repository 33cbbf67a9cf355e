import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// A run whose standard output could not be written ends with one line,
/// `imgcache: write error: No space left on device`, and exit status 23
/// (`output`, as curl's), whatever it was printing: image bytes, pixels,
/// records, paths or reports (man page, EXIT STATUS). A closed pipe never
/// gets here: `StandardStreams` ends the process by SIGPIPE.
enum OutputFailure {
    /// Prints the line and exits if stdout failed; `status` is what the run
    /// would have exited with otherwise, combined as failures of several
    /// kinds are (an interruption wins; another failure makes it 1).
    static func exitIfStdoutFailed(status: Int32) {
        guard let failure = StandardStreams.failure else { return }
        StandardStreams.printError("imgcache: \(failure.message)")
        let output = ExitStatus.code(for: .output)
        Glibc.exit(status == 0 || status == output ? output : status == 130 ? 130 : 1)
    }
}
