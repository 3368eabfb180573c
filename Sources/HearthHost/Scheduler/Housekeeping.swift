import Foundation
import HearthKit
import HearthStore

/// The daemon's work beside runs: the outbox's delivery passes
/// (docs/outbox-and-webhooks.md#delivery-retries-dead-letters) — one at a time, when something
/// is due — and handing the heap back once no run and no pass is going
/// (docs/performance.md#daemon-idle-cost).
struct Housekeeping: Sendable {
    /// Once no run and no outbox pass is going, the heap is trimmed if a run or a pass since
    /// the last trim took at least this long (seconds).
    static let trimAfterRunsOf: TimeInterval = 0.1

    /// Delivers the messages runs commit; nil: not delivered here.
    let outbox: (any DaemonOutbox)?
    /// When the outbox next needs a pass (nil: nothing pending, as far as the daemon knows).
    var outboxDue: Date?
    var outboxTask: Task<Void, Never>?
    /// A run or outbox pass of ``trimAfterRunsOf`` or more ended since the heap was last trimmed.
    var heapToTrim = false

    init(outbox: (any DaemonOutbox)?) {
        self.outbox = outbox
    }

    /// Something may have been queued (a run ended, an event was queued): a pass now, when the
    /// daemon delivers (cheap when the outbox is empty).
    mutating func passNow(_ now: Date) {
        guard outbox != nil else { return }
        outboxDue = min(outboxDue ?? now, now)
    }

    /// When the next pass is due, unless one is going.
    var nextPass: Date? { outboxTask == nil ? outboxDue : nil }

    /// A pass ended after `took`; the next message is due at `next` (nil: none pending).
    mutating func passFinished(next: Date?, took: Duration, now: Date) {
        outboxTask = nil
        if took >= .seconds(Self.trimAfterRunsOf) { heapToTrim = true }
        if let next {
            // A message that is still due (e.g. claimed by a CLI deliverer right now) is tried
            // again a second later, not in a tight loop.
            let due = max(next, now.addingTimeInterval(1))
            outboxDue = min(outboxDue ?? due, due)
        }
    }

    /// What a large run decoded and dropped (documents, a listing of a million ids) stays in
    /// glibc's arenas: once no run is going, the daemon hands it back, so it rests at its idle
    /// size between runs, not at its largest run's. The same after an outbox pass that
    /// delivered a big run's messages. Not while another run or a pass still holds its own
    /// (runs at start go together), and not after quick runs alone: a one-gift triggered run is
    /// not made to pay for the walk over the arenas.
    mutating func trimHeapWhenIdle(after record: RunRecord?, runsGoing: () -> Bool) {
        if let record, record.end.timeIntervalSince(record.start) >= Self.trimAfterRunsOf { heapToTrim = true }
        guard heapToTrim, !runsGoing(), outboxTask == nil else { return }
        heapToTrim = false
        Task.detached { HeapTrim.releaseFreePages() }
    }
}
