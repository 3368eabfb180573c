import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthHost
import Synchronization
import Testing
import HearthTestSupport

/// A scheduler clock that only moves when the test says so: `sleep(until:)` returns once
/// `advance(to:)` reaches the deadline (or throws when the sleeping task is cancelled).
final class ManualSchedulerClock: SchedulerClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state: Mutex<State>
    /// Told of every new sleeper.
    private let changes = ChangeNotifier()

    init(_ start: Date) {
        state = Mutex(State(now: start))
    }

    func now() -> Date { state.withLock { $0.now } }

    /// Deadlines of the sleeps in progress, earliest first.
    var sleepingUntil: [Date] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    func sleep(until deadline: Date) async throws {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Action { case wait, resume, cancel }
                let action = state.withLock { s -> Action in
                    if s.cancelled.remove(id) != nil { return .cancel }
                    if s.now >= deadline { return .resume }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: c)
                    return .wait
                }
                switch action {
                case .wait: changes.notify()
                case .resume: c.resume()
                case .cancel: c.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                if let sl = s.sleepers.removeValue(forKey: id) { return sl }
                s.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until something sleeps until exactly `deadline` (up to 10 s of real time).
    func sleeper(until deadline: Date, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await eventually("a sleep until \(deadline); sleeping until \(sleepingUntil)", timeout: .seconds(10), wakingOn: changes, sourceLocation: sourceLocation) {
            sleepingUntil.contains(deadline)
        }
    }

    /// Moves time to `date` (never backwards) and wakes every sleeper whose deadline passed.
    func advance(to date: Date) {
        let due = state.withLock { s -> [Sleeper] in
            s.now = max(s.now, date)
            let ids = s.sleepers.filter { $0.value.deadline <= s.now }.map(\.key)
            return ids.compactMap { s.sleepers.removeValue(forKey: $0) }
        }
        for s in due { s.continuation.resume() }
    }

    func advance(by seconds: TimeInterval) {
        advance(to: now().addingTimeInterval(seconds))
    }
}
