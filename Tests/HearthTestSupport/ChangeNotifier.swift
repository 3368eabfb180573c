import Synchronization

/// Lets a test wait for a condition that only changes when its source says so (a line on a
/// child's stderr, a datagram, a daemon event), instead of re-checking it on a timer.
///
/// The source calls ``notify()`` after every change; `eventually(_:timeout:wakingOn:…)`
/// checks the condition now and again after each notification, until it holds or its deadline
/// passes.
public final class ChangeNotifier: Sendable {
    private struct State {
        var generation = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters woken (by the timeout or a cancellation) before they suspended.
        var woken: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes every waiter to check its condition again.
    public func notify() {
        let waiters = state.withLock { s in
            s.generation += 1
            defer { s.waiters = [:] }
            return s.waiters
        }
        for c in waiters.values { c.resume() }
    }

    /// How many times ``notify()`` was called: read before checking a condition, and passed to
    /// ``changed(since:deadline:)``, so that a change during the check is not missed.
    var generation: Int { state.withLock { $0.generation } }

    /// Returns after the next `notify()` (or at once if one came after `generation`), at
    /// `deadline`, or when the task is cancelled, whichever is first.
    func changed(since generation: Int, deadline: ContinuousClock.Instant) async {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        let timer = Task { [self] in
            // Cancelled (the wait ended first): nothing to wake.
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            wake(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.woken.remove(id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.generation != generation || s.woken.contains(id) { return true }
                    s.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            wake(id)
        }
    }

    private func wake(_ id: Int) {
        let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let c = s.waiters.removeValue(forKey: id) { return c }
            s.woken.insert(id)
            return nil
        }
        c?.resume()
    }
}
