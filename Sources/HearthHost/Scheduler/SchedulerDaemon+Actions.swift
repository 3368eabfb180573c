import Foundation
import Logging
import HearthKit
package import HearthStore

/// What an operator can do to a running daemon over its HTTP endpoint
/// (docs/operations/api.md): run a job now through the daemon's own queue, pause, resume.
extension SchedulerDaemon {
    /// Why a run cannot be queued; each maps to one HTTP status (docs/operations/api.md#errors).
    package enum RunRequestError: Error, Sendable, CustomStringConvertible {
        case unknownJob(String, known: [String])
        case disabled(String)
        case paused(JobPause)
        case stopping
        case invalid(field: String, message: String)

        package var description: String {
            switch self {
            case .unknownJob(let name, let known):
                return "unknown job \(JSONWriter.quoted(name)); configured jobs: \(known.joined(separator: ", "))"
            case .disabled(let name):
                return "\(name) is disabled (enabled = false in the configuration); enable it and reload the daemon (SIGHUP) to run it here, or use `hearth run \(name)`"
            case .paused(let pause):
                return "\(pause.job) is paused\(pause.note.map { " (\($0))" } ?? ""); resume it first, or send \"force\": true to run it once anyway"
            case .stopping:
                return "the daemon is stopping; no new run starts"
            case .invalid(_, let message):
                return message
            }
        }
    }

    /// Queues one run of `name` now, like a slot that came (the overlap of runs, the job's run
    /// lock and its retries apply: it waits for a run in progress, never runs beside it), and
    /// returns its run id. A paused job runs only with `force`.
    package func requestRun(job name: String, parameters: [String: String], dryRun: Bool, force: Bool) throws(RunRequestError) -> String {
        guard config.jobs[name] != nil else { throw .unknownJob(name, known: config.jobs.keys.sorted()) }
        guard !life.stopping else { throw .stopping }
        guard let j = jobs[name], j.enabled else { throw .disabled(name) }
        if let pause = pauses[name], !force { throw .paused(pause) }
        do { try attempts.runner.check(job: name, parameters: parameters, config: config) } catch let error as ParameterError {
            throw .invalid(field: "params.\(error.parameter)", message: error.description)
        } catch {
            throw .invalid(field: "params", message: String(describing: error))
        }
        let now = clock.now()
        let runID = Runner.makeRunID(job: name, start: now)
        tickets.open(runID, job: name)
        enqueue(name, PendingRun(logicalTime: now, origin: .runNow(RunNowRequest(ticket: runID, parameters: parameters, dryRun: dryRun, force: force))))
        logger.notice("run asked for", metadata: ["job": "\(name)", "run": "\(runID)", "dryRun": "\(dryRun)", "force": "\(force)"])
        nudge()
        return runID
    }

    /// Waits until the run `ticket` (from ``requestRun(job:parameters:dryRun:force:)``) ends,
    /// its retries included; nil when it was dropped before it ran (the job paused, the daemon
    /// stopping) or the ticket is unknown.
    package func waitForRun(_ ticket: String) async -> RunRecord? {
        if let ended = tickets.result(ticket) { return ended }
        guard tickets.pending(ticket) != nil else { return nil }
        return await withCheckedContinuation { tickets.wait(for: ticket, $0) }
    }

    /// A run asked for over HTTP that has not ended: its job and whether it is running
    /// (else queued).
    package func pendingRun(_ ticket: String) -> (job: String, running: Bool)? {
        tickets.pending(ticket).map { ($0.job, $0.running) }
    }

    /// Pauses `name` (``JobPause`` by `by`) and applies it at once; false when it was already
    /// paused (its note is replaced).
    package func pause(job name: String, note: String?, by: String) throws -> Bool {
        let pause = JobPause(job: name, note: note, pausedAt: clock.now(), pausedBy: by)
        try data.setPause(pause)
        let paused = pauses.set(pause)
        if paused {
            dropWaitingRuns(name)
            logger.notice("job paused", metadata: ["job": "\(name)", "by": "\(by)", "note": "\(note ?? "")"])
            emit(.paused(job: name))
        }
        nudge()
        return paused
    }

    /// Resumes `name` at once; false when it was not paused.
    package func resume(job name: String) throws -> Bool {
        try data.clearPause(job: name)
        guard pauses.clear(name) else { return false }
        logger.notice("job resumed", metadata: ["job": "\(name)", "next": "\(jobs[name]?.nextSlot.map(Timestamp.format) ?? "none")"])
        emit(.resumed(job: name))
        nudge()
        return true
    }

    /// The outbox changed outside a run (a dead letter retried): a delivery pass now.
    package func outboxChanged() {
        eventQueued()
    }
}
