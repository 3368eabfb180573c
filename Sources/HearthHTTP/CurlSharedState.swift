import Synchronization
import HearthKit

typealias CurlResultContinuation = CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>

/// Everything callers and the curl thread both touch, behind one lock.
///
/// The lock is taken once per request by the caller (``enqueue(id:request:continuation:)``) and
/// once per turn of the curl thread's loop (``takeWork(into:finished:)``, which also forgets the
/// transfers finished in the previous turn); nothing is allocated while it is held. With two cores
/// shared by callers, the curl thread and often the server, a lock taken three times per request
/// (as it was) kept threads spinning on it (docs/performance.md#push-throughput).
final class CurlSharedState: Sendable {
    enum Entry {
        /// The task was cancelled before the request was queued.
        case cancelledEarly
        /// Waiting in ``State/startQueue`` for the curl thread to pick it up.
        case queued
        /// Owned by the curl thread, which resumes the continuation.
        case started
    }

    /// A request waiting for the curl thread.
    typealias Start = (id: UInt64, request: CurlPreparedRequest, continuation: CurlResultContinuation)

    struct State {
        /// Requests queued, cancelled early or in flight; absent: not queued yet, or done.
        var entries: [UInt64: Entry] = [:]
        /// Requests to start, in order; those whose entry is no longer `.queued` were cancelled.
        var startQueue: [Start] = []
        var cancelQueue: [UInt64] = []
        var stopping = false
    }

    let multi: CurlMultiHandle
    let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)

    init(multi: CurlMultiHandle) {
        self.multi = multi
    }

    func allocateID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func enqueue(id: UInt64, request: CurlPreparedRequest, continuation: CurlResultContinuation) {
        let refusal: HTTPTransportError? = state.withLock { state in
            if state.entries[id] != nil {  // only `.cancelledEarly` can be there yet
                state.entries[id] = nil
                return .cancelled
            }
            if state.stopping { return .invalidRequest("the HTTP client has been shut down") }
            state.entries[id] = .queued
            // A non-empty queue means a wakeup is already on its way.
            if state.startQueue.isEmpty { multi.wakeup() }
            state.startQueue.append((id, request, continuation))
            return nil
        }
        if let refusal { continuation.resume(returning: .failure(refusal)) }
    }

    /// The calling task was cancelled: a queued request is dropped (the curl thread resumes it
    /// with ``HTTPTransportError/cancelled``), a started one aborted by the curl thread.
    func cancel(id: UInt64) {
        state.withLock { state in
            switch state.entries[id] {
            case nil:
                // Not queued yet (or already finished: ``forgetEarlyCancel(id:)`` tidies that up).
                state.entries[id] = .cancelledEarly
            case .queued:
                state.entries[id] = nil
            case .started:
                if state.cancelQueue.isEmpty && !state.stopping { multi.wakeup() }
                state.cancelQueue.append(id)
            case .cancelledEarly:
                break
            }
        }
    }

    /// Called by `send` when its task was cancelled, after the cancellation handler can no longer
    /// run: removes the mark ``cancel(id:)`` left if the request had finished in the meantime.
    func forgetEarlyCancel(id: UInt64) {
        state.withLock { state in
            if case .cancelledEarly? = state.entries[id] { state.entries[id] = nil }
        }
    }

    func requestStop() {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            multi.wakeup()
        }
    }

    /// Called by the curl thread: forgets the transfers in `finished` (their callers were resumed
    /// already), swaps the queued requests into `starts` (empty on entry), and takes the ids
    /// to cancel. `dropped`: the requests in `starts` cancelled while queued, not to be started.
    func takeWork(into starts: inout [Start], finished: [UInt64]) -> (dropped: [UInt64], cancels: [UInt64], stopping: Bool) {
        state.withLock { state in
            for id in finished { state.entries[id] = nil }
            swap(&starts, &state.startQueue)
            var dropped: [UInt64] = []
            for start in starts {
                if case .queued? = state.entries[start.id] {
                    state.entries[start.id] = .started
                } else {
                    dropped.append(start.id)
                }
            }
            var cancels: [UInt64] = []
            if !state.cancelQueue.isEmpty { swap(&cancels, &state.cancelQueue) }
            return (dropped, cancels, state.stopping)
        }
    }
}
