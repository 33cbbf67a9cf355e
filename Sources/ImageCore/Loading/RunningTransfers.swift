/// The transfers in the multi handle, by id (callers cancel by id) and by
/// easy handle (libcurl reports a finished transfer by its handle). Only
/// the loop thread touches it.
struct RunningTransfers {
    private var byID: [UInt64: CurlTransfer] = [:]
    private var idByHandle: [UnsafeMutableRawPointer: UInt64] = [:]

    var count: Int { byID.count }
    var isEmpty: Bool { byID.isEmpty }
    var ids: [UInt64] { Array(byID.keys) }
    var all: Dictionary<UInt64, CurlTransfer>.Values { byID.values }

    func contains(_ id: UInt64) -> Bool { byID[id] != nil }

    mutating func add(_ transfer: CurlTransfer) {
        byID[transfer.id] = transfer
        idByHandle[transfer.easy.raw] = transfer.id
    }

    mutating func remove(_ id: UInt64) -> CurlTransfer? {
        guard let transfer = byID.removeValue(forKey: id) else { return nil }
        idByHandle[transfer.easy.raw] = nil
        return transfer
    }

    mutating func remove(handle: UnsafeMutableRawPointer) -> CurlTransfer? {
        idByHandle.removeValue(forKey: handle).flatMap { byID.removeValue(forKey: $0) }
    }
}
