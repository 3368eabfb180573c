package import Foundation
import Dispatch
// Since swift-crypto 4 and jwt-kit joined the build, the compiler attributes `timespec`'s
// initializer to CoreFoundation's module, which MemberImportVisibility then needs imported.
import CoreFoundation
import Synchronization
import HearthKit

/// The real wall clock for the daemon.
///
/// `sleep(until:)` arms a libdispatch *wall-clock* timer (on Linux a `timerfd` on
/// `CLOCK_REALTIME` with an absolute expiry), so the wake-up follows the system clock: after
/// a system sleep or when the clock is stepped forward past the deadline, it fires at once;
/// when the clock is stepped back it fires later, at the same wall-clock time. Nothing runs
/// while it waits.
package struct SystemSchedulerClock: SchedulerClock {
    /// Longest single wait; the daemon simply sleeps again. Keeps the deadline inside
    /// libdispatch's range (nanoseconds since 1970 in 63 bits).
    static let maximumWait: TimeInterval = 30 * 86_400

    package init() {}

    package func now() -> Date { Date() }

    package func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let current = Date()
        guard deadline > current else { return }
        let target = min(deadline, current.addingTimeInterval(Self.maximumWait))
        let seconds = target.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let spec = timespec(tv_sec: Int(whole), tv_nsec: min(999_999_999, Int((seconds - whole) * 1e9)))

        let waiter = TimerWaiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.start(wallDeadline: DispatchWallTime(timespec: spec), continuation: continuation)
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// One armed timer and the continuation it resumes exactly once (on expiry or cancel).
/// `@unchecked Sendable`: the dispatch source is thread-safe and the rest is behind the mutex.
private final class TimerWaiter: @unchecked Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Void, any Error>?
        var finished = false
    }
    private let state = Mutex(State())
    private let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global())

    func start(wallDeadline: DispatchWallTime, continuation: CheckedContinuation<Void, any Error>) {
        source.setEventHandler { [self] in finish(nil) }
        source.schedule(wallDeadline: wallDeadline, leeway: .milliseconds(1))
        let alreadyFinished = state.withLock { s -> Bool in
            if s.finished { return true }
            s.continuation = continuation
            return false
        }
        // Activated exactly once, whatever happened; cancelling is idempotent.
        source.resume()
        if alreadyFinished {
            source.cancel()
            continuation.resume(throwing: CancellationError())
        }
    }

    func cancel() {
        finish(CancellationError())
    }

    private func finish(_ error: (any Error)?) {
        let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            s.finished = true
            let c = s.continuation
            s.continuation = nil
            return c
        }
        source.cancel()
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
