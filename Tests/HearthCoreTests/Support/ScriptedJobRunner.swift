import Foundation
import HearthKit
import HearthStore
import HearthHost
import Synchronization

/// A ``SchedulerJobRunner`` that records each attempt and answers with the status the test's
/// script gives (it may also wait, e.g. on a ``Gate``). It writes nothing.
final class ScriptedJobRunner: SchedulerJobRunner {
    struct Call: Equatable, CustomStringConvertible {
        var job: String
        var logicalTime: Date
        var trigger: RunRecord.Trigger
        var attempt: Int
        var description: String { "\(job)@\(Timestamp.format(logicalTime)) \(trigger.rawValue) #\(attempt)" }
    }

    typealias Script = @Sendable (Call) async throws -> RunRecord.Status
    private let script: Script
    private let clock: any HearthClock
    private let recorded = Mutex<[Call]>([])
    private let messagesQueued: Int

    /// - Parameter messagesQueued: what each successful run reports it queued in the outbox.
    init(clock: any HearthClock, messagesQueued: Int = 0, script: @escaping Script = { _ in .succeeded }) {
        self.clock = clock
        self.messagesQueued = messagesQueued
        self.script = script
    }

    var calls: [Call] { recorded.withLock { $0 } }

    func run(job: String, options: RunOptions, config: HearthConfig) async throws -> RunRecord {
        let call = Call(job: job, logicalTime: options.logicalTime ?? clock.now(), trigger: options.trigger, attempt: options.attempt)
        recorded.withLock { $0.append(call) }
        let start = clock.now()
        let status = try await script(call)
        var record = RunRecord(
            runID: options.runID ?? "r\(UUID().uuidString.prefix(8))", job: job, trigger: call.trigger, logicalTime: call.logicalTime, start: start,
            end: clock.now(), attempt: call.attempt, status: status, dryRun: options.dryRun)
        if status.isFailure { record.error = "scripted \(status.rawValue)" } else { record.messagesQueued = messagesQueued }
        return record
    }
}

/// A one-shot barrier: `wait()` returns once `open()` has been called.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters.removeAll()
    }
}
