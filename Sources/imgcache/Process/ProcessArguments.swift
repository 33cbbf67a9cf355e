internal import CProcessArguments

/// The command line as glibc handed it to the executable (CProcessArguments:
/// the Swift runtime's own search for it read /proc/self/maps at every
/// start, a tenth of a warm hit's instructions).
enum ProcessArguments {
    /// The arguments after the program's name.
    static let afterName: [String] = {
        let argv = imgcache_process_argv()
        return (1..<max(1, Int(imgcache_process_argc()))).compactMap { argv[$0].map { String(cString: $0) } }
    }()
}
