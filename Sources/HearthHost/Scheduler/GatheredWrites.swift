import Foundation
import HearthStore

/// Which writes start which runs (docs/triggers.md#what-the-daemon-does-with-writes): per job,
/// the writes its next triggered run takes and when that run is due. A value: the daemon hands
/// it the change feed's events with its jobs as they are now, and logs, counts and starts runs
/// from what it answers.
///
/// - **Gathering.** A batch of writes to a collection joins the next triggered run of every
///   job given that has the collection among its triggers, except: the job's own commit
///   (never), a paused job's (the schedule picks those up once it is resumed), and a commit
///   whose chain already has ``maxChainLinks`` links (docs/triggers.md#chains).
/// - **Due.** The run is due `triggerDelay` after the first write it takes; later writes join
///   it until it is taken.
/// - **Lost writes.** Every job the loss concerns, unless paused, reads everything once.
struct GatheredWrites: Sendable {
    /// Chains stop after this many links (docs/triggers.md#chains).
    static let maxChainLinks = 8

    /// An enabled job as gathering sees it.
    struct Job: Sendable {
        var name: String
        var triggers: [String]
        var triggerDelay: Duration
        var paused: Bool
    }

    /// What an event did for one job.
    enum Outcome: Sendable, Equatable {
        /// The writes joined the job's next triggered run: `count` documents (nil: it reads
        /// everything), from a chain of `chain` links.
        case gathered(job: String, count: Int?, chain: Int)
        case ignored(job: String, reason: SchedulerEvent.IgnoredChanges)
    }

    /// The writes gathered, by job.
    private(set) var byJob: [String: TriggerChanges] = [:]

    /// Gathers one event of the change feed for `jobs` (in their order), seen at `now`; one
    /// outcome per job it concerns, in the same order.
    mutating func take(_ event: ChangeFeedEvent, jobs: [Job], now: Date) -> [Outcome] {
        var outcomes: [Outcome] = []
        switch event {
        case .changed(let batch):
            for job in jobs where job.triggers.contains(batch.collection) {
                if batch.writer == job.name {
                    outcomes.append(.ignored(job: job.name, reason: .ownCommit))
                } else if job.paused {
                    outcomes.append(.ignored(job: job.name, reason: .paused))
                } else if batch.chain + 1 > Self.maxChainLinks {
                    outcomes.append(.ignored(job: job.name, reason: .chainLimit))
                } else {
                    gather(job.name, TriggerChanges.Batch(paths: batch.paths, sequence: batch.sequence, chain: batch.chain, seen: now), due: now + job.triggerDelay)
                    outcomes.append(.gathered(job: job.name, count: batch.paths?.count, chain: batch.chain))
                }
            }
        case .lost(let collections, _):
            for job in jobs where !collections.isDisjoint(with: job.triggers) {
                if job.paused {
                    outcomes.append(.ignored(job: job.name, reason: .paused))
                } else {
                    gatherEverything(job.name, seen: now, due: now + job.triggerDelay)
                    outcomes.append(.gathered(job: job.name, count: nil, chain: 0))
                }
            }
        }
        return outcomes
    }

    /// A run of `job` that reads everything: at start or when a reload added triggers (`seen`
    /// nil: no write started it), after a loss (`seen`: when it was reported).
    mutating func gatherEverything(_ job: String, seen: Date?, due: Date) {
        gather(job, TriggerChanges.Batch(paths: nil, sequence: nil, chain: 0, seen: seen), due: due)
    }

    private mutating func gather(_ job: String, _ batch: TriggerChanges.Batch, due: Date) {
        // In place: a burst of writes appends without copying what was gathered.
        byJob[job, default: TriggerChanges(due: due)].batches.append(batch)
    }

    /// The earliest due run among the jobs `canStart` accepts (a busy job's run waits for it).
    func nextDue(where canStart: (String) -> Bool) -> Date? {
        byJob.compactMap { name, changes in canStart(name) ? changes.due : nil }.min()
    }

    /// Takes (and clears) the writes of `job` when its run is due at `now`.
    mutating func takeDue(_ job: String, now: Date) -> TriggerChanges? {
        guard let changes = byJob[job], changes.due <= now else { return nil }
        byJob[job] = nil
        return changes
    }

    /// Drops the writes gathered for `job` (paused: the schedule picks them up).
    mutating func drop(_ job: String) {
        byJob[job] = nil
    }

    /// Drops the writes gathered for every job not in `jobs`.
    mutating func keep(only jobs: Set<String>) {
        byJob = byJob.filter { jobs.contains($0.key) }
    }

    mutating func dropAll() {
        byJob.removeAll()
    }
}
