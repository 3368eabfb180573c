import Foundation
package import Logging
package import HearthKit
import HearthDataDirectory
package import HearthStore
import HearthOutbound
import HearthHTTP

/// Runs one job once (docs/runs-and-plans.md#runs): builds the job, runs it with a timeout, and either reports
/// its plan (dry run) or commits its changeset atomically, re-running up to 3 times when
/// another process changed a document it writes.
package struct Runner: Sendable {
    package static let maxConflictReruns = 3
    /// A call re-runs on a conflict at most this many times, then answers `ABORTED`.
    package static let maxCallReruns = 5

    package let config: HearthConfig
    /// Where documents are read and runs committed.
    package let store: any StorageBackend
    package let registry: JobRegistry
    package let clock: any HearthClock
    package let environment: JobEnvironment
    package let logger: Logger

    package init(config: HearthConfig, data store: any StorageBackend, registry: JobRegistry, clock: any HearthClock = SystemClock(), environment: JobEnvironment? = nil, logger: Logger = Logger(label: "hearth")) {
        self.config = config
        self.store = store
        self.registry = registry.including(config, logger: logger)
        self.clock = clock
        self.environment = environment ?? JobEnvironment(notificationTypes: config.notificationTypes, http: LazyCurlTransport(config: config.http), pushProvider: config.push.provider)
        self.logger = logger
    }

    /// Checks that a job can be run with these parameters, before anything runs: the job, its
    /// descriptor, its configuration and its parameters, resolved once (the run's contexts get
    /// these). Throws ``UnknownJobError``, ``ParameterError`` or ``JobSetupError``.
    package func prepare(_ name: String, parameters: [String: String]) throws -> (any RunnableJob, JobDescriptor, JobConfig, JobParameters) {
        guard let definition = registry.job(named: name), let jc = config.jobs[name] else {
            throw UnknownJobError(name: name, known: registry.names)
        }
        let params = try JobParameters.resolve(specs: definition.descriptor.parameters, config: jc.params, commandLine: parameters)
        return (try definition.make(parameters: params, environment: environment), definition.descriptor, jc, params)
    }

    /// Runs a job. Setup errors (unknown job, bad parameter, job set-up) are thrown; run
    /// failures are reported in the outcome (and its record).
    package func run(_ name: String, options: RunOptions = RunOptions()) async throws -> RunOutcome {
        let (job, descriptor, jc, parameters) = try prepare(name, parameters: options.parameters)
        // The record's times are the clock's; the job's S may be set (`--now`).
        let start = clock.now()
        let jobStart = options.startTime ?? start
        let logical = options.logicalTime ?? jobStart
        let runID = options.runID ?? Runner.makeRunID(job: name, start: start)
        var record = RunRecord(runID: runID, job: name, trigger: options.trigger, logicalTime: logical, start: start, end: start, attempt: options.attempt, status: .succeeded, dryRun: options.dryRun)
        record.triggerPaths = Array(options.triggerPaths.prefix(RunRecord.maxTriggerPaths))
        record.triggerPathCount = options.triggerPathCount
        record.callerUID = options.call?.uid
        var answer: CallAnswer?
        var plan = Plan(job: name, logicalTime: Timestamp.format(logical), timeZone: jc.timeZone.ianaName, dryRun: options.dryRun, changeset: Changeset(), warnings: [])
        var failure: (any Error)?

        // Real runs hold the job's run lock for their whole duration (shared with the daemon),
        // and finish any crashed commit before they read, so the job never reads a commit half
        // applied (the backend's commit finishes one again under its writers' lock). Calls take
        // neither: they run side by side, and a commit a crash left half applied is finished by
        // the next commit before it checks versions, so a call that read it conflicts and runs
        // again.
        let holder = "pid=\(getpid()) job=\(name)"
        var runLock: (any StorageLock)?
        if !options.dryRun, options.call == nil {
            runLock = try await store.lockJob(name, holder: "\(holder) run=\(runID)", timeout: config.lockTimeout)
            let r = try await store.recoverInterruptedCommits(holder: holder, timeout: config.lockTimeout)
            if !r.finished.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(r.finished)"]) }
        }
        defer { runLock?.release() }

        var attempt = 0
        while true {
            attempt += 1
            let ran = try await attemptJob(job, descriptor, name: name, runID: runID, options: options, logical: logical, jobStart: jobStart, jc: jc, parameters: parameters)
            record.warnings = ran.warnings
            record.documentsRead = ran.documentsRead
            if let refusal = ran.error as? CallError, options.call != nil {
                // The job's answer to the call: nothing is written, and the run did its job.
                answer = .error(refusal)
                record.status = ran.warnings.isEmpty ? .succeeded : .succeededWithWarnings
                break
            }
            if let error = ran.error {
                failure = error
                record.status = error is CancellationError || error is RunTimeoutError ? .cancelled : .failed
                break
            }
            let changeset = ran.changeset
            plan = Plan(job: name, logicalTime: Timestamp.format(logical), timeZone: jc.timeZone.ianaName, dryRun: options.dryRun, changeset: changeset, warnings: ran.warnings)
            record.status = ran.warnings.isEmpty ? .succeeded : .succeededWithWarnings
            let c = changeset.counts
            (record.created, record.updated, record.deleted, record.messagesQueued) = (c.created, c.updated, c.deleted, changeset.messages.count)
            if options.call != nil { answer = .result(ran.result ?? .null) }
            if options.dryRun { break }
            FaultInjection.beforeCommit(attempt: attempt)
            // What the job decoded and dropped is free but still resident: hand it back before
            // the commit allocates (docs/performance.md#peak-memory).
            HeapTrim.releaseFreePages()

            record.end = max(clock.now(), record.start)
            record.answer = answer?.code
            let events = webhookSubscribes(to: Self.succeededEvent) ? [Self.jobEvent(record)] : []
            let commit = RunCommit(job: name, runID: runID, changeset: changeset, record: record, events: events, messagesCreatedAt: jobStart, chain: options.chain)
            let result: CommitResult
            do { result = try await store.commit(commit, holder: holder, timeout: config.lockTimeout) } catch let error as OwnershipError {
                // Refused before the commit: a failed run (recorded), nothing written.
                failure = error
                record.status = .failed
                break
            }
            if case .conflict(let conflicts) = result {
                record.conflicts += 1
                if attempt > (options.call == nil ? Runner.maxConflictReruns : Runner.maxCallReruns) {
                    failure = ConflictError(paths: conflicts, attempts: attempt)
                    record.status = .conflict
                    break
                }
                logger.warning("conflict: documents changed while the job ran; re-running", metadata: ["job": "\(name)", "paths": "\(conflicts.prefix(3).map(\.description))", "rerun": "\(attempt)"])
                continue
            }
            try? store.pruneRunRecords(job: name, keep: config.historyLimit)
            return RunOutcome(record: record, plan: plan, error: nil, answer: answer)
        }
        record.end = max(clock.now(), record.start)
        if let failure { record.error = Runner.describe(failure) }
        if options.call != nil {
            if answer == nil || failure != nil { answer = .failure(record.status) }
            record.answer = answer?.code
        }
        await emitJobFailed(record)
        try await store.saveRecord(record)
        try? store.pruneRunRecords(job: name, keep: config.historyLimit)
        return RunOutcome(record: record, plan: plan, error: failure, answer: answer)
    }

    /// What one attempt of the job's code left: its changeset, warnings and reads, or the error
    /// that ended it.
    private struct JobAttempt {
        var changeset = Changeset()
        var warnings: [String]
        var documentsRead: Int
        var error: (any Error)?
        var result: JSONValue?
    }

    /// One attempt of the job's code, with the timeout, over a new read snapshot. The snapshot
    /// (on PostgreSQL a connection in a read-only transaction) ends when this returns, before
    /// the commit, which then reuses its connection (docs/storage/postgres.md#connections).
    /// Throws only when the snapshot cannot be taken.
    private func attemptJob(
        _ job: any RunnableJob, _ descriptor: JobDescriptor, name: String, runID: String, options: RunOptions, logical: Date, jobStart: Date, jc: JobConfig,
        parameters: JobParameters
    ) async throws -> JobAttempt {
        // An ordered job on a store several daemons share reads everything: the writes another
        // daemon claimed may come before the ones this run was told of. Runs of one job never
        // overlap (the job's run lock), and this snapshot is taken under it.
        let changes = descriptor.ordered && store.features.contains(.sharedByDaemons) ? nil : options.changes
        let ctx = JobContext(
            jobName: name, runID: runID, isDryRun: options.dryRun, logicalTime: logical, startTime: jobStart, timeZone: jc.timeZone,
            parameters: parameters, store: try store.readSnapshot(), policy: jc.policy.onInvalidDocument, progress: options.progress,
            changes: changes, call: options.call)
        var attempt = JobAttempt(warnings: [], documentsRead: 0)
        do {
            try await Runner.withTimeout(jc.policy.timeout) { try await job.run(ctx) }
            try descriptor.checkDeclaredWrites(ctx.changeset)
            attempt.changeset = ctx.changeset
            attempt.result = ctx.result
        } catch {
            attempt.error = error
        }
        attempt.warnings = ctx.issues.map(\.description) + ctx.warnings
        attempt.documentsRead = ctx.documentsRead
        return attempt
    }

    /// A sortable, unique run id: `job-20261118T120000123Z-3f9a`.
    static func makeRunID(job: String, start: Date) -> String {
        let ts = Timestamp.format(start).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "").replacingOccurrences(of: ".", with: "")
        let rnd = String(UInt16.random(in: 0...UInt16.max), radix: 16)
        return "\(ts)-\(String(repeating: "0", count: 4 - rnd.count))\(rnd)"
    }

    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }

    /// Runs `body`, cancelling it cooperatively at `timeout`.
    static func withTimeout(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            let first = try await group.next()!
            if !first { throw RunTimeoutError(timeout: timeout) }
        }
    }
}
