import Synchronization

@testable import ImageCore

/// A leasing store that counts what it is asked. Its lease is free
/// (`alwaysTaken` false) or someone else's: a holder that died when the
/// store was made (its lease free once run out if `holderDied`, else held
/// for ever), or (`holderRenews`) a live one that keeps renewing it. It has
/// the object only from `objectArrives` on (on `clock`), if given.
final class FakeLeasingStore: RemoteLeasing {
    let configured: RemoteStorageURL
    let alwaysTaken: Bool
    let holderRenews: Bool
    let holderDied: Bool
    let clock: any TimeSource
    let object: [UInt8]?
    let objectArrives: Double
    let gets = Atomic<Int>(0)
    let renewals = Atomic<Int>(0)
    let releases = Atomic<Int>(0)
    private let tries = Mutex<[Double]>([])
    private let othersExpiry: Double

    /// When each `acquireLease` came, on `clock`.
    var leaseTries: [Double] { tries.withLock { $0 } }

    init(
        alwaysTaken: Bool, leaseDuration: Double, holderRenews: Bool = false, holderDied: Bool = false,
        object: [UInt8]? = nil, arrivingAfter delay: Double = 0, clock: any TimeSource
    ) {
        var configured = try! RemoteStorageURL(parsing: "redis://fake.invalid")
        configured.leaseDuration = leaseDuration
        self.configured = configured
        self.alwaysTaken = alwaysTaken
        self.holderRenews = holderRenews
        self.holderDied = holderDied
        self.clock = clock
        self.object = object
        objectArrives = clock.monotonicNow() + delay
        othersExpiry = clock.monotonicNow() + leaseDuration
    }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? {
        gets.add(1, ordering: .relaxed)
        return clock.monotonicNow() >= objectArrives ? object : nil
    }
    func put(_ name: String, _ object: [UInt8]) async throws {}
    func delete(_ name: String) async throws -> Bool { false }
    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        tries.withLock { $0.append(clock.monotonicNow()) }
        guard alwaysTaken else { return .acquired }
        let remaining = holderRenews ? configured.leaseDuration : max(0, othersExpiry - clock.monotonicNow())
        if holderDied && remaining == 0 { return .acquired }
        return .held(remaining: remaining)
    }
    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool {
        renewals.add(1, ordering: .relaxed)
        return !alwaysTaken
    }
    func releaseLease(_ name: String, token: String) async throws { releases.add(1, ordering: .relaxed) }
}
