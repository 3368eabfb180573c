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
    /// Writes to collections that trigger `job` joined its next triggered run
    /// (docs/triggers.md#what-the-daemon-does-with-writes): `count` documents (nil: the run
    /// must read everything — the batch could not name them, or writes were lost), written by a
    /// commit with ``ChangeBatch/chain`` `chain` (0: not a job's commit).
    case changesSeen(job: String, count: Int?, chain: Int)
    /// Writes to collections that trigger `job` that do not start it.
    case changesIgnored(job: String, reason: IgnoredChanges)
    /// The change feed reported that writes to `collections` may have been missed (sorted);
    /// the jobs they trigger read everything once.
    case changesLost(collections: [String], reason: String)
    /// A triggered run takes the writes gathered for `job` and starts now: the first
    /// ``RunRecord/maxTriggerPaths`` of their paths and how many there are; `paths` nil when the
    /// run reads everything (the daemon's first run, writes lost or not named).
    case triggered(job: String, paths: [String]?, count: Int)
    /// Every write a triggered run of `job` was for was taken by another daemon sharing the
    /// store: nothing ran here, nothing was recorded.
    case changesClaimedElsewhere(job: String)
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

    /// Why writes do not start a job (``SchedulerEvent/changesIgnored(job:reason:)``).
    package enum IgnoredChanges: String, Sendable {
        /// The job's own commit wrote them.
        case ownCommit = "own-commit"
        /// The job is paused: the schedule picks its writes up once it is resumed.
        case paused
        /// They come from a chain of 8 commits, each started by the one before.
        case chainLimit = "chain-limit"
    }
}
