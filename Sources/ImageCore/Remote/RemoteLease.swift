import Synchronization

/// A download lease this process holds in one remote storage: renewed in
/// the background while the download runs, given up once the entry is
/// uploaded to that storage (waiters poll it there), or at once if the
/// download ends without an upload.
final class RemoteLease: Sendable {
    /// What happens to the lease next.
    private enum State {
        case held(renewal: Task<Void, Never>?)
        /// An upload to the lease's storage runs; it releases the lease when done.
        case uploading(renewal: Task<Void, Never>?)
        case released
    }

    let name: String
    let token: String
    /// The backend holding it, in `RemoteCache.backends`.
    let index: Int
    let storage: any RemoteLeasing
    /// What the renewals sleep on.
    let clock: any TimeSource
    private let state = Mutex<State>(.held(renewal: nil))

    init(name: String, token: String, index: Int, storage: any RemoteLeasing, clock: any TimeSource) {
        self.name = name
        self.token = token
        self.index = index
        self.storage = storage
        self.clock = clock
    }

    /// Renews the lease every third of its duration until it is released
    /// or lost (another machine holds it after it expired, or the store failed).
    func startRenewing(every duration: Double) {
        let renewal = Task { [name, token, storage, clock] in
            while !Task.isCancelled {
                try? await clock.sleep(duration / 3)
                guard !Task.isCancelled,
                    (try? await storage.renewLease(name, token: token, duration: duration)) == true
                else { return }
            }
        }
        let started = state.withLock { state -> Bool in
            guard case .held(nil) = state else { return false }
            state = .held(renewal: renewal)
            return true
        }
        if !started { renewal.cancel() }
    }

    /// Marks that an upload to the lease's storage will release it; false
    /// if one already does or the lease is gone.
    func startUpload() -> Bool {
        state.withLock { state in
            guard case .held(let renewal) = state else { return false }
            state = .uploading(renewal: renewal)
            return true
        }
    }

    /// Whether an upload has taken over releasing the lease.
    var isUploading: Bool {
        state.withLock { if case .uploading = $0 { true } else { false } }
    }

    /// Stops renewing; true the first time (the caller then frees it in the store).
    func markReleased() -> Bool {
        let renewal: Task<Void, Never>?? = state.withLock { state in
            switch state {
            case .held(let renewal), .uploading(let renewal):
                state = .released
                return .some(renewal)
            case .released:
                return .none
            }
        }
        guard let renewal else { return false }
        renewal?.cancel()
        return true
    }
}
