import Foundation
import Logging
import HearthKit
import HearthStore

/// Attempts: launched on the ``AttemptRunner`` off the actor, and what their end does — the
/// log, the status board, `pauseAfterFailures`, an outbox pass, a retry, the ticket.
extension SchedulerDaemon {
    func launch(_ name: String, _ active: JobState.Active) {
        guard jobs[name] != nil else { return }
        let run = active.run
        let (config, attempts, id) = (self.config, self.attempts, active.id)
        emit(.started(job: name, logicalTime: run.logicalTime, trigger: run.trigger, attempt: run.attempt))
        tickets.started(run.ticket)
        let task = Task {
            let outcome = await attempts.run(name, run, config: config)
            self.attemptFinished(name, id: id, outcome: outcome)
        }
        jobs[name]?.active = JobState.Active(run: run, phase: .running(task), id: id)
    }

    func attemptFinished(_ name: String, id: Int, outcome: AttemptRunner.Outcome) {
        guard var j = jobs[name], j.active?.id == id else { return }
        j.active = nil
        jobs[name] = j
        trimHeapWhenIdle(after: outcome.record)
        // The attempt as its retry takes it: a triggered one keeps the writes it claimed.
        let run = outcome.run
        guard let record = outcome.record else {
            // Another daemon holds the slot (docs/operations/high-availability.md), or took the
            // writes of a triggered run: not a run here.
            if case .write = run.origin { emit(.changesClaimedElsewhere(job: name)) }
            tickets.end(run.ticket, nil)
            nudge()
            return
        }
        var metadata: Logger.Metadata = [
            "job": "\(name)", "logicalTime": "\(Timestamp.format(run.logicalTime))", "trigger": "\(run.trigger.rawValue)",
            "attempt": "\(run.attempt)", "status": "\(record.status.rawValue)", "run": "\(record.runID)",
        ]
        if record.status.isFailure {
            metadata["error"] = "\(record.error ?? "")"
            logger.warning("run \(record.status.rawValue)", metadata: metadata)
        } else {
            metadata["changes"] = "+\(record.created) ~\(record.updated) -\(record.deleted) messages=\(record.messagesQueued)"
            logger.notice("run \(record.status.rawValue)", metadata: metadata)
        }
        emit(.finished(job: name, logicalTime: run.logicalTime, trigger: run.trigger, attempt: run.attempt, status: record.status))
        if record.dryRun {
            // A dry run changes nothing: not the job's last result, not a failure in a row,
            // never retried (docs/operations/monitoring.md#run-now).
            tickets.end(run.ticket, record)
            nudge()
            return
        }
        let failures = board.finished(record)
        if case .write(let changes) = run.origin { triggeredRunFinished(name, record: record, changes: changes) }
        if record.status.isFailure, pauses[name] == nil, let limit = j.config.policy.pauseAfterFailures, failures >= limit {
            pauseAfterFailures(name, record: record, failures: failures)
        }
        // The run may have committed messages (its own, or the runner's job.succeeded /
        // job.failed events).
        housekeeping.passNow(clock.now())
        if record.status.isFailure, !life.stopping, j.enabled, pauses[name] == nil, run.attempt <= j.config.policy.retries {
            let delay = slots.retryDelay(after: run.attempt, j.config.policy)
            let at = clock.now() + delay
            j.active = JobState.Active(run: run.retry, phase: .waiting(until: at), id: nextActiveID)
            nextActiveID += 1
            logger.notice("retrying in \(DurationFormat.format(delay))", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(run.logicalTime))", "attempt": "\(run.attempt + 1)"])
            emit(.retryScheduled(job: name, logicalTime: run.logicalTime, attempt: run.attempt + 1, at: at))
        } else {
            tickets.end(run.ticket, record)
        }
        jobs[name] = j
        nudge()
    }

    /// The jobs with a run or a call running.
    func runningJobs() -> [String] {
        Set(jobs.filter { $0.value.isRunning }.keys).union(tickets.callingJobs).sorted()
    }
}
