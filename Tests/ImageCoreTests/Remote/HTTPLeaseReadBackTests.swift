import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// The doubt from review (HTTPRemoteStorage+Leases.swift): a lease PUT
/// that succeeded, then a read-back that finds no lease. Another machine
/// deleted it in between (a waiter freeing a run-out lease whose ETag was
/// weak, so without `If-Match`) and is taking the lease itself; had this
/// machine counted the lease as its own, both would download.
struct HTTPLeaseReadBackTests {
    @Test func aLeaseGoneBeforeItWasReadBackIsNotTaken() async throws {
        let server = try TestHTTPServer()
        let objects = Mutex(Set<String>())
        server.routeOthers { request in
            let path = request.path
            return objects.withLock { objects in
                switch request.method {
                case "PUT":
                    if request.header("If-None-Match") == "*" && objects.contains(path) { return .status(412) }
                    // Every lease is deleted by another machine as soon as it is written.
                    if !path.hasSuffix(".lease") { objects.insert(path) }
                    return .status(201)
                case "GET": return objects.contains(path) ? .ok(Array("x".utf8), headers: [:]) : .status(404)
                case "DELETE": return objects.remove(path) == nil ? .status(404) : .status(204)
                default: return .status(405)
                }
            }
        }
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let store = HTTPRemoteStorage(try RemoteStorageURL(parsing: server.url("")), network: loader)
        let answer = try await store.acquireLease("k", token: "t", duration: 30)
        #expect(answer != .acquired)
        // It tried again rather than give up at once.
        let leasePuts = server.requests.filter { $0.method == "PUT" && $0.path.hasSuffix("k.lease") }
        #expect(leasePuts.count == 2)
    }
}
