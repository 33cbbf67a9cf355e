internal import CProcessArguments
import ImageCore

/// The command line as glibc handed it to the executable (CProcessArguments:
/// the Swift runtime's own search for it read /proc/self/maps at every
/// start, a tenth of a warm hit's instructions).
enum ProcessArguments {
    /// The arguments after the program's name, each byte that is not UTF-8
    /// kept (`String(platformBytes:)`): a path in Latin-1 reaches the file
    /// calls as typed, a URL's such byte is sent as `%XX`
    /// (`percentEncodingRawBytes`). `String(cString:)` put U+FFFD in its
    /// place: the file was written under another name.
    static let afterName: [String] = {
        let argv = imgcache_process_argv()
        return (1..<max(1, Int(imgcache_process_argc()))).compactMap { argv[$0].map { String(platformCString: $0) } }
    }()

    /// Whether the command line is `argument` alone, read from `argv` without
    /// building `afterName`: `--version` then answers before the process makes
    /// any array of strings, whose storage type's first use costs 27 k
    /// instructions (the runtime caches every prespecialized one; callgrind).
    static func isOnly(_ argument: String) -> Bool {
        guard imgcache_process_argc() == 2, let given = imgcache_process_argv()[1] else { return false }
        return String(cString: given) == argument
    }
}
