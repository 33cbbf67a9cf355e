/// Answers from the cache alone, for callers that serve hits themselves
/// and hand anything else to `load`: both go through `Lookup`, as `load` does.
extension ImageManager {
    /// `load`'s result when memory or a fresh entry answers `request` (a
    /// warm `prefetch`, whose requests need no bytes: the entry's record
    /// answers), found here on the caller's thread: a batch of hits then runs
    /// no task per URL and wakes no thread. Nil when `load` must run; a disk
    /// miss is marked on `request`, so that `load` does not look again (it
    /// counts the miss).
    /// `key` is `key(for: request.url)`, which the caller keeps for `load`.
    func answerFromCache(_ request: inout ImageRequest, key: CacheKey) -> ImageResponse? {
        switch try? lookup.look(request, key: key, .hitsOnly) {
        case .hit(var found):
            // Read back from the entry (or made once): a warm run decodes nothing.
            // One that cannot be made is left to `load`, which reports why.
            if request.wantsPlaceholder {
                guard let placeholder = try? placeholder(of: found, request) else { return nil }
                found.placeholder = placeholder
            }
            lookup.remember(RenderedResponse(response: found), request)
            return found
        case .miss:
            request.diskMissed = true
            return nil
        case .hitThenRevalidate, .stale, .undecided, .unreadable, nil:
            return nil
        }
    }

    /// A fresh hit answered synchronously (the command line's warm hit): the
    /// response, counted and logged as `load` counts and logs it, when the
    /// cache holds one `request` may be served as it is, with no decoding or
    /// encoding; nil for anything else (stale, miss, Vary mismatch, pixels, a
    /// read-only cache, over this run's limits), which the caller then
    /// leaves to `load`. Counts
    /// nothing but the hit (and a damaged entry found on the way).
    public func freshHit(_ request: ImageRequest) -> ImageResponse? {
        guard writesCache,
            case .hit(let response)? = try? lookup.look(request, key: key(for: request.url), .hitsOnly)
        else { return nil }
        return response
    }
}
