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
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, Glibc.listen(listener, 0) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.filler = filler
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// "http://127.0.0.1:PORT/path".
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
