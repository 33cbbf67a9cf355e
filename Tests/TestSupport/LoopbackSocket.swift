import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// TCP sockets on 127.0.0.1 for the tests' own servers and probes.
package enum LoopbackSocket {
    /// A TCP socket bound to 127.0.0.1 on a port the kernel picks, and the port.
    package static func bound() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = self.address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether `descriptor` connected to 127.0.0.1:`port`.
    package static func connect(_ descriptor: Int32, port: Int) -> Bool {
        var address = address(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A loopback port that refuses every connection for as long as this value
/// lives: a socket bound to it and never listening holds it, so no other
/// server of the test run can take it (a port from `freePort`, closed
/// again, is free for the next socket that asks, and a dead store's port
/// could then answer). Connects to it are refused at once (RST).
package final class RefusingPort: Sendable {
    private let descriptor: Int32
    /// The port nothing listens on.
    package let port: Int

    package init() throws {
        (descriptor, port) = try LoopbackSocket.bound()
    }

    deinit {
        close(descriptor)
    }
}
