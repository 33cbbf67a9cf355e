import Testing

@testable import ImageCore

@Suite struct MemoryCacheTests {
    @Test func evictsLeastRecentlyUsedFirst() {
        let cache = MemoryCache<Int>(costLimit: 30)
        cache.set(1, for: "a", cost: 10)
        cache.set(2, for: "b", cost: 10)
        cache.set(3, for: "c", cost: 10)
        #expect(cache.value(for: "a") == 1)  // a is now the most recent
        let evicted = cache.set(4, for: "d", cost: 10)
        #expect(evicted == 1)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "c") == 3)
        #expect(cache.totalCost == 30)
    }

    @Test func replacingAValueUpdatesItsCost() {
        let cache = MemoryCache<Int>(costLimit: 100)
        cache.set(1, for: "a", cost: 60)
        cache.set(2, for: "a", cost: 20)
        #expect(cache.totalCost == 20)
        #expect(cache.count == 1)
        #expect(cache.value(for: "a") == 2)
    }

    @Test func refusesAValueCostlierThanTheLimit() {
        let cache = MemoryCache<Int>(costLimit: 10)
        cache.set(1, for: "small", cost: 5)
        cache.set(2, for: "huge", cost: 11)
        #expect(cache.value(for: "huge") == nil)
        #expect(cache.value(for: "small") == 1)
    }
}
