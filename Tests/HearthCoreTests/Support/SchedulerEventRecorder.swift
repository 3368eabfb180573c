import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthHost
import Synchronization
import Testing
import HearthTestSupport

/// Collects a daemon's events in the background so a test can wait for the next one that
/// matches (in order), with a real-time timeout so a broken daemon fails the test instead of
/// hanging it.
final class SchedulerEventRecorder: Sendable {
    private struct State {
        var events: [SchedulerEvent] = []
        var cursor = 0
    }

    private final class Storage: Sendable {
        let state = Mutex(State())
        /// Told of every event.
        let changes = ChangeNotifier()
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ events: AsyncStream<SchedulerEvent>) {
        let storage = self.storage
        task = Task {
            for await e in events {
                storage.state.withLock { $0.events.append(e) }
                storage.changes.notify()
            }
        }
    }

    deinit { task.cancel() }

    var all: [SchedulerEvent] { storage.state.withLock { $0.events } }

    /// The next event after the previous match for which `predicate` holds.
    @discardableResult
    func next(timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation, _ predicate: (SchedulerEvent) -> Bool) async throws -> SchedulerEvent {
        try await eventually("a scheduler event; events so far:\n  \(all.map { "\($0)" }.joined(separator: "\n  "))", timeout: timeout, wakingOn: storage.changes, sourceLocation: sourceLocation) {
            storage.state.withLock { s -> SchedulerEvent? in
                guard let i = s.events[s.cursor...].firstIndex(where: predicate) else { return nil }
                s.cursor = i + 1
                return s.events[i]
            }
        }
    }

    /// Waits until the daemon sleeps until `date` (nil: with nothing scheduled).
    func sleeping(until date: Date?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await next(sourceLocation: sourceLocation) { $0 == .sleeping(until: date) }
    }
}
