import Synchronization

/// A cost-limited least-recently-used cache keyed by strings, safe to use
/// from any thread. The critical sections only touch the table; values are
/// never called into while the lock is held.
///
/// The key is `String`, not a generic `Hashable`: the manager makes one at
/// start, and a generic class with a `Hashable` requirement is instantiated
/// from its mangled name, for which the Swift runtime searches every
/// protocol conformance in the binary (200 000 instructions, a tenth of a
/// warm hit's, callgrind).
public final class MemoryCache<Value: Sendable>: Sendable {
    public typealias Key = String

    private struct Node {
        var value: Value
        var cost: Int
        var older: Key?
        var newer: Key?
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        var newest: Key?
        var oldest: Key?
        var totalCost = 0
    }

    private let state = Mutex(State())
    /// Most total cost held; the least recently used entries go first.
    public let costLimit: Int

    /// A cache holding at most `costLimit` in total cost.
    public init(costLimit: Int) {
        self.costLimit = costLimit
    }

    /// Total cost held now (for tests: the library itself never asks).
    var totalCost: Int { state.withLock { $0.totalCost } }

    /// The value for `key`, now the most recently used; nil on a miss.
    public func value(for key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self.unlink(key, &state)
            Self.linkNewest(key, node, &state)
            return node.value
        }
    }

    /// Stores a value; returns how many older values were evicted to make room.
    /// A value costlier than the whole limit is not stored, and a cache
    /// with a limit of zero stores nothing (not even values said to cost nothing).
    @discardableResult
    public func set(_ value: Value, for key: Key, cost: Int) -> Int {
        state.withLock { state in
            if state.nodes[key] != nil { Self.unlink(key, &state) }
            guard costLimit > 0, cost <= costLimit else { return 0 }
            Self.linkNewest(key, Node(value: value, cost: cost), &state)
            var evicted = 0
            while state.totalCost > costLimit, let oldest = state.oldest {
                Self.unlink(oldest, &state)
                evicted += 1
            }
            return evicted
        }
    }

    /// Number of values held now.
    public var count: Int { state.withLock { $0.nodes.count } }

    private static func linkNewest(_ key: Key, _ node: Node, _ state: inout State) {
        var node = node
        node.older = state.newest
        node.newer = nil
        if let newest = state.newest { state.nodes[newest]?.newer = key }
        state.newest = key
        if state.oldest == nil { state.oldest = key }
        state.nodes[key] = node
        state.totalCost += node.cost
    }

    private static func unlink(_ key: Key, _ state: inout State) {
        guard let node = state.nodes.removeValue(forKey: key) else { return }
        if let older = node.older { state.nodes[older]?.newer = node.newer } else { state.oldest = node.newer }
        if let newer = node.newer { state.nodes[newer]?.older = node.older } else { state.newest = node.older }
        state.totalCost -= node.cost
    }
}
