import Foundation
import HearthKit
import HearthStore

/// The outbox's delivery passes and the heap trim, driven by the loop (see ``Housekeeping``).
extension SchedulerDaemon {
    /// One outbox pass at a time, when something is due.
    func startOutboxPassIfDue(now: Date) {
        guard !life.stopping, let outbox = housekeeping.outbox, let due = housekeeping.nextPass, due <= now else { return }
        housekeeping.outboxDue = nil
        housekeeping.outboxTask = Task {
            // Monotonic time, only to tell a big pass from a small one.
            let started = ContinuousClock.now
            let next = await outbox.deliverDue(at: now)
            self.outboxPassFinished(next: next, took: ContinuousClock.now - started)
        }
    }

    func outboxPassFinished(next: Date?, took: Duration) {
        housekeeping.passFinished(next: next, took: took, now: clock.now())
        emit(.outboxPassed(nextDue: housekeeping.outboxDue))
        trimHeapWhenIdle(after: nil)
        nudge()
    }

    /// Something was queued outside a run (an event, a dead letter retried): a pass now.
    func eventQueued() {
        guard housekeeping.outbox != nil else { return }
        housekeeping.passNow(clock.now())
        nudge()
    }

    func trimHeapWhenIdle(after record: RunRecord?) {
        housekeeping.trimHeapWhenIdle(after: record) { !runningJobs().isEmpty }
    }
}
