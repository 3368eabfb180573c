package import Foundation
package import HearthStore

/// What the scheduler daemon just did, in order, on ``SchedulerDaemon/events``: for tests,
/// and for anyone who wants to watch it (it is also logged).
package enum SchedulerEvent: Sendable, Equatable {
    /// Scheduling has started (after `READY=1`), with the enabled jobs.
    case ready(jobs: [String])
    /// Waiting for the next slot, retry or delayed start (nil: nothing is scheduled).
    case sleeping(until: Date?)
    /// A slot, a catch-up slot or a retry was put in the job's queue.
    case queued(job: String, logicalTime: Date, trigger: RunRecord.Trigger)
    /// A run waits `jitter` before it starts.
    case delayed(job: String, logicalTime: Date, until: Date)
    case started(job: String, logicalTime: Date, trigger: RunRecord.Trigger, attempt: Int)
    case finished(job: String, logicalTime: Date, trigger: RunRecord.Trigger, attempt: Int, status: RunRecord.Status)
    /// A slot recorded as `skipped-overlap`, `skipped-catch-up` or `skipped-paused`.
    case skipped(job: String, logicalTime: Date, status: RunRecord.Status)
    /// A failed attempt will be retried at `at`.
    case retryScheduled(job: String, logicalTime: Date, attempt: Int, at: Date)
    /// An outbox delivery pass ended; the next one is due at `nextDue` (nil: nothing pending).
    case outboxPassed(nextDue: Date?)
    /// The job was paused (read from the backend, or by `pauseAfterFailures`).
    case paused(job: String)
    /// The job was resumed.
    case resumed(job: String)
    case reloaded
    case reloadFailed(reason: String)
    /// Graceful stop: nothing new starts; `running` may finish until `deadline`.
    case stopping(deadline: Date, running: [String])
    /// The grace has passed: these runs are being cancelled.
    case cancelling(jobs: [String])
    case stopped
}
