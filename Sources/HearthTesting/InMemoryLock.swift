import HearthStore
import Synchronization

/// A job lock of an ``InMemoryStore``: released by ``release()`` (once; later calls do nothing).
struct InMemoryLock: StorageLock {
    let store: InMemoryStore
    let job: String
    let holder: String

    func release() {
        store.state.withLock { s in
            if s.locks[job] == holder { s.locks[job] = nil }
        }
    }
}
