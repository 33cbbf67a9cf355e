import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port where a connect hangs, as toward a host that drops SYNs:
/// a listener with a backlog of 0 whose one accept-queue place is taken by
/// a connection nobody accepts, so Linux drops every later SYN and the
/// client waits in SYN_SENT until its connect timeout.
package final class UnansweredListener {
    package let port: Int
    private let listener: Int32
    private let filler: Int32

    package init() throws {
        (listener, port) = try LoopbackSocket.bound()
        filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard Glibc.listen(listener, 0) == 0, LoopbackSocket.connect(filler, port: port) else {
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// "http://127.0.0.1:PORT/path".
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
