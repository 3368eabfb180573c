import Logging
package import HearthKit
import HearthStore

/// Calls from apps (docs/callables.md#a-call-is-a-run): each one a run of its own, started at
/// once beside the job's other runs and calls, never skipped as an overlap nor retried — the
/// caller is waiting, and it is the caller who calls again.
extension SchedulerDaemon {
    /// Runs `call` of job `name` and returns its answer. A job that is not callable, disabled or
    /// unknown is `NOT_FOUND`; a paused one, or a daemon that is stopping, `UNAVAILABLE`.
    package func call(job name: String, _ call: Call) async -> CallAnswer {
        guard let jc = config.jobs[name], jc.enabled else { return .error(CallError(.notFound, "no callable function named \(name)")) }
        if let refusal = jc.refusal(of: call) { return .error(refusal) }
        if life.stopping { return .error(CallError(.unavailable, "the server is stopping; call again")) }
        if pauses[name] != nil { return .error(CallError(.unavailable, "\(name) is paused by its operator; call again later")) }
        let run = PendingRun(logicalTime: clock.now(), origin: .call(call))
        let (attempts, config) = (self.attempts, self.config)
        emit(.started(job: name, logicalTime: run.logicalTime, trigger: .call, attempt: 1))
        let task = Task { await attempts.run(name, run, config: config) }
        let number = tickets.callStarted(name, task)
        let outcome = await task.value
        tickets.callEnded(number)
        let answer = outcome.answer ?? .failure(.failed)
        if let record = outcome.record {
            var metadata: Logger.Metadata = ["job": "\(name)", "trigger": "call", "status": "\(record.status.rawValue)", "answer": "\(answer.code)", "run": "\(record.runID)"]
            if let error = record.error { metadata["error"] = "\(error)" }
            logger.log(level: record.status.isFailure ? .warning : .info, "call answered", metadata: metadata)
            emit(.finished(job: name, logicalTime: run.logicalTime, trigger: .call, attempt: 1, status: record.status))
            if !record.dryRun { _ = board.finished(record) }
            trimHeapWhenIdle(after: record)
        }
        // The call may have committed messages (a push to the receiver of a gift).
        housekeeping.passNow(clock.now())
        nudge()
        return answer
    }
}
