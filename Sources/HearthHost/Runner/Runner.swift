import Foundation
public import Logging
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// Runs one job once (SPEC §4): builds the job, runs it with a timeout, and either reports
/// its plan (dry run) or commits its changeset atomically, re-running up to 3 times when
/// another process changed a document it writes.
public struct Runner: Sendable {
    public static let maxConflictReruns = 3

    public let config: HearthConfig
    public let data: DataDirectory
    public let registry: JobRegistry
    public let clock: any HearthClock
    public let environment: JobEnvironment
    public let logger: Logger

    public init(config: HearthConfig, data: DataDirectory, registry: JobRegistry, clock: any HearthClock = SystemClock(), environment: JobEnvironment? = nil, logger: Logger = Logger(label: "hearth")) {
        self.config = config
        self.data = data
        self.registry = registry
        self.clock = clock
        self.environment = environment ?? JobEnvironment(notificationTypes: config.notificationTypes, http: LazyCurlTransport(config: config.http), pushProvider: config.push.provider)
        self.logger = logger
    }

    var committer: Committer { Committer(data: data) }
    var history: RunHistory { RunHistory(data: data, limit: config.historyLimit) }

    /// Checks that a job can be run with these parameters, before anything runs.
    /// Throws ``UnknownJobError``, ``ParameterError`` or ``JobSetupError``.
    public func prepare(_ name: String, parameters: [String: String]) throws -> (any Job, JobConfig) {
        guard let type = registry.job(named: name), let jc = config.jobs[name] else {
            throw UnknownJobError(name: name, known: registry.names)
        }
        let params = try JobParameters.resolve(specs: type.descriptor.parameters, config: jc.params, commandLine: parameters)
        return (try type.init(parameters: params, environment: environment), jc)
    }

    /// Runs a job. Setup errors (unknown job, bad parameter, job set-up) are thrown; run
    /// failures are reported in the outcome (and its record).
    public func run(_ name: String, options: RunOptions = RunOptions()) async throws -> RunOutcome {
        let (job, jc) = try prepare(name, parameters: options.parameters)
        let start = options.startTime ?? clock.now()
        let logical = options.logicalTime ?? start
        let runID = Runner.makeRunID(job: name, start: start)
        var record = RunRecord(runID: runID, job: name, trigger: options.trigger, logicalTime: logical, start: start, end: start, attempt: options.attempt, status: .succeeded, dryRun: options.dryRun)
        var plan = Plan(job: name, logicalTime: Timestamp.format(logical), timeZone: jc.timeZone.identifier, dryRun: options.dryRun, changeset: Changeset(), warnings: [])
        var failure: (any Error)?

        // Real runs hold the job's run lock for their whole duration (shared with the daemon),
        // and finish any crashed commit first.
        var runLock: CommitLock?
        if !options.dryRun {
            runLock = try CommitLock.acquire(
                path: data.stateDirectory + "/jobs/\(name).lock", holder: "pid=\(getpid()) job=\(name) run=\(runID)",
                timeout: config.lockTimeout, what: "job \(name)")
            let lock = try committer.lock(holder: "pid=\(getpid()) job=\(name)", timeout: config.lockTimeout)
            let r = try committer.recover()
            lock.release()
            if !r.redone.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(r.redone)"]) }
        }
        defer { runLock?.release() }

        var attempt = 0
        while true {
            attempt += 1
            let ctx = JobContext(
                jobName: name, logicalTime: logical, startTime: start, timeZone: jc.timeZone,
                parameters: try JobParameters.resolve(specs: type(of: job).descriptor.parameters, config: jc.params, commandLine: options.parameters),
                store: data, policy: jc.policy.onInvalidDocument, progress: options.progress)
            do {
                try await Runner.withTimeout(jc.policy.timeout) { try await job.run(ctx) }
            } catch {
                failure = error
                record.status = error is CancellationError || error is RunTimeoutError ? .cancelled : .failed
                record.warnings = ctx.issues.map(\.description) + ctx.warnings
                record.documentsRead = ctx.documentsRead
                break
            }
            let changeset = ctx.changeset

            let warnings = ctx.issues.map(\.description) + ctx.warnings
            plan = Plan(job: name, logicalTime: Timestamp.format(logical), timeZone: jc.timeZone.identifier, dryRun: options.dryRun, changeset: changeset, warnings: warnings)
            record.warnings = warnings
            record.documentsRead = ctx.documentsRead
            record.status = warnings.isEmpty ? .succeeded : .succeededWithWarnings
            let c = changeset.counts
            (record.created, record.updated, record.deleted, record.messagesQueued) = (c.created, c.updated, c.deleted, changeset.messages.count)
            if options.dryRun { break }
            FaultInjection.beforeCommit(attempt: attempt)

            let lock = try committer.lock(holder: "pid=\(getpid()) job=\(name)", timeout: config.lockTimeout)
            let conflicts = try committer.conflicts(in: changeset)
            if !conflicts.isEmpty {
                lock.release()
                if attempt > Runner.maxConflictReruns {
                    failure = ConflictError(paths: conflicts, attempts: attempt)
                    record.status = .conflict
                    break
                }
                logger.warning("conflict: documents changed while the job ran; re-running", metadata: ["job": "\(name)", "paths": "\(conflicts.prefix(3).map(\.description))", "rerun": "\(attempt)"])
                continue
            }
            record.end = clock.now()
            if record.end < record.start { record.end = record.start }
            let outbox = OutboxStore.batchOperations(changeset.messages, job: name, runID: runID, createdAt: start)
            let recordOp = Journal.Operation.put(record.relativePath, JSONWriter.document(record.json))
            do {
                let ledger = Ledger.operations(records: changeset.ledgerRecords, deletes: changeset.ledgerDeletes, job: name, runID: runID)
                try committer.commit(changeset, id: "\(name)-\(runID)", leading: ledger, extra: outbox + jobSucceededOperations(record) + [recordOp])
            } catch {
                lock.release()
                throw error
            }
            lock.release()
            try? history.prune(job: name)
            return RunOutcome(record: record, plan: plan, error: nil)
        }
        record.end = max(clock.now(), record.start)
        if let failure { record.error = Runner.describe(failure) }
        emitJobFailed(record)
        try history.write(record)
        try? history.prune(job: name)
        return RunOutcome(record: record, plan: plan, error: failure)
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
