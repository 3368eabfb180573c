import Foundation
import Logging
import HearthKit
import HearthStore

/// Runs one attempt of a daemon's run, off the daemon's actor: what a run needs (the runner,
/// the store, the clock, the claim holder, pings, the log) and how each ``RunOrigin`` starts.
///
/// Several daemons on one store (docs/storage/postgres.md#several-daemons): a scheduled or
/// catch-up attempt claims its slot, a triggered one claims its writes; a run asked for over
/// HTTP is this daemon's alone. An attempt that cannot start — a claim fails, the runner throws —
/// or is cancelled is recorded by ``recordFailure(_:_:status:error:)``, whatever its origin.
struct AttemptRunner: Sendable {
    /// How an attempt ended.
    struct Outcome: Sendable {
        /// Nil: another daemon holds the slot or took every write; nothing ran here.
        var record: RunRecord?
        /// The attempt as its retry takes it (the writes it claimed).
        var run: PendingRun
        /// For a call, what the caller is answered.
        var answer: CallAnswer?
    }

    let runner: any SchedulerJobRunner
    let data: any StorageBackend
    let clock: any SchedulerClock
    /// Names this daemon in slot and write claims.
    let holder: String
    /// Run monitoring for jobs with `pingUrl`; nil: no pings.
    let pinger: RunPinger?
    let logger: Logger

    func run(_ name: String, _ run: PendingRun, config: HearthConfig) async -> Outcome {
        switch run.origin {
        case .schedule, .catchUp:
            return Outcome(record: await slotAttempt(name, run, config: config), run: run)
        case .runNow:
            logger.info("run starting", metadata: ["job": "\(name)", "trigger": "\(run.trigger.rawValue)", "attempt": "\(run.attempt)", "dryRun": "\(run.dryRun)"])
            let options = RunOptions(
                trigger: run.trigger, logicalTime: run.logicalTime, dryRun: run.dryRun, parameters: run.origin.request?.parameters ?? [:],
                attempt: run.attempt, runID: run.runID)
            return Outcome(record: await attempt(name, run, options: options, config: config), run: run)
        case .write(let changes):
            return await writeAttempt(name, run, changes: changes, config: config)
        case .call(let call):
            // Any daemon answers any call: there is nothing to claim, and the commit's version
            // check keeps calls on the same documents apart (docs/callables.md#several-daemons).
            var options = RunOptions(trigger: .call, logicalTime: run.logicalTime, startTime: run.logicalTime)
            options.call = call
            do {
                let (record, answer) = try await runner.call(job: name, options: options, config: config)
                return Outcome(record: record, run: run, answer: answer)
            } catch {
                let status: RunRecord.Status = error is CancellationError ? .cancelled : .failed
                return Outcome(record: await recordFailure(name, run, status: status, error: String(describing: error)), run: run, answer: .failure(status))
            }
        }
    }

    /// The runner's attempt; a throw (it could not start, or was cancelled) is recorded.
    private func attempt(_ name: String, _ run: PendingRun, options: RunOptions, config: HearthConfig) async -> RunRecord {
        do { return try await runner.run(job: name, options: options, config: config) } catch {
            return await recordFailure(name, run, status: error is CancellationError ? .cancelled : .failed, error: String(describing: error))
        }
    }

    /// A scheduled or catch-up attempt: the slots of this job whose daemon died mid-run first,
    /// then this slot, claimed and held while the attempt runs, with its pings.
    private func slotAttempt(_ name: String, _ run: PendingRun, config: HearthConfig) async -> RunRecord? {
        let lease = config.storage.leaseTimeout
        for orphan in (try? await data.expiredSlotClaims(job: name)) ?? [] {
            guard (try? await data.claimSlot(job: name, logicalTime: orphan, holder: holder, lease: lease)) == true else { continue }
            logger.notice("taking over a slot whose daemon stopped mid-run (lease expired)", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(orphan))"])
            _ = try? await renewingClaim(job: name, slot: orphan, lease: lease) {
                try await runner.run(job: name, options: RunOptions(trigger: .catchUp, logicalTime: orphan, attempt: 1), config: config)
            }
        }
        do {
            if try await !data.claimSlot(job: name, logicalTime: run.logicalTime, holder: holder, lease: lease) {
                // The normal case with several daemons: another one runs (or ran) it. Nothing to record.
                logger.debug("slot claimed by another daemon", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(run.logicalTime))"])
                return nil
            }
        } catch {
            // Not run: another daemon may hold it. A failure, retried per the job's policy.
            return await recordFailure(name, run, error: "cannot claim the slot: \(error)")
        }
        // Logged once the slot is this daemon's: with several daemons, the others stay quiet.
        logger.info("run starting", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(run.logicalTime))", "trigger": "\(run.trigger.rawValue)", "attempt": "\(run.attempt)"])
        let pingURL = config.jobs[name]?.pingURL
        if let pingURL, let pinger { await pinger.ping(pingURL, .start, job: name) }
        let options = RunOptions(trigger: run.trigger, logicalTime: run.logicalTime, attempt: run.attempt)
        let record = await renewingClaim(job: name, slot: run.logicalTime, lease: lease) {
            await attempt(name, run, options: options, config: config)
        }
        if let pingURL, let pinger { await pinger.ping(pingURL, record.status.isFailure ? .fail : .success, job: name) }
        return record
    }

    /// A triggered attempt: claims its writes (the first attempt only), then runs with them.
    private func writeAttempt(_ name: String, _ run: PendingRun, changes: TriggerChanges, config: HearthConfig) async -> Outcome {
        var changes = changes
        var run = run
        if !changes.claimed {
            let sequences = changes.sequences
            if !sequences.isEmpty {
                let taken: Set<Int64>
                do { taken = try await data.claimChanges(job: name, sequences: sequences, holder: holder) } catch {
                    // Not run: another daemon may have taken them. A failure, retried per the job's policy.
                    return Outcome(record: await recordFailure(name, run, error: "cannot claim the writes that started the run: \(error)"), run: run)
                }
                // A run that reads everything runs whoever took its batches.
                if !changes.readsEverything { changes.batches.removeAll { $0.sequence.map { !taken.contains($0) } ?? false } }
            }
            changes.claimed = true
            run.origin = .write(changes)
            if changes.batches.isEmpty {
                logger.debug("writes taken by another daemon", metadata: ["job": "\(name)", "batches": "\(sequences.count)"])
                return Outcome(record: nil, run: run)
            }
        }
        let options = changes.runOptions(trigger: run.trigger, logicalTime: run.logicalTime, attempt: run.attempt)
        logger.info("run starting", metadata: [
            "job": "\(name)", "trigger": "\(run.trigger.rawValue)", "attempt": "\(run.attempt)",
            "documents": "\(options.changes.map { "\($0.count)" } ?? "all")", "chain": "\(options.chain)",
        ])
        return Outcome(record: await attempt(name, run, options: options, config: config), run: run)
    }

    /// Runs `body` while renewing this daemon's claim on the slot every third of the lease, so
    /// the lease expires only when the daemon is gone, never under a run that is still going
    /// (waiting for the job's lock included).
    private func renewingClaim<T: Sendable>(job: String, slot: Date, lease: Duration, _ body: @Sendable () async throws -> T) async rethrows -> T {
        let (data, holder) = (self.data, self.holder)
        let renewer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: lease / 3)
                if Task.isCancelled { break }
                _ = try? await data.claimSlot(job: job, logicalTime: slot, holder: holder, lease: lease)
            }
        }
        defer { renewer.cancel() }
        return try await body()
    }

    /// The record of an attempt that could not start or was cancelled, saved to the run history.
    func recordFailure(_ name: String, _ run: PendingRun, status: RunRecord.Status = .failed, error: String) async -> RunRecord {
        let now = clock.now()
        var record = RunRecord(
            runID: run.runID ?? Runner.makeRunID(job: name, start: now), job: name, trigger: run.trigger, logicalTime: run.logicalTime,
            start: now, end: now, attempt: run.attempt, status: status, dryRun: run.dryRun)
        record.error = error
        if case .call(let call) = run.origin { (record.callerUID, record.answer) = (call.uid, CallAnswer.failure(status).code) }
        do { try await data.saveRecord(record) } catch {
            logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
        }
        return record
    }
}
