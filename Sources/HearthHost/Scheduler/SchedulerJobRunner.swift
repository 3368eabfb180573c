package import Logging
package import HearthKit
package import HearthStore
import HearthOutbound

/// What the daemon needs to run one attempt of a job. ``RunnerJobRunner`` runs it for real
/// through ``Runner``; tests may substitute a scripted runner.
package protocol SchedulerJobRunner: Sendable {
    /// Runs one attempt with `config` (the daemon's current configuration, which changes on
    /// SIGHUP). Returns the attempt's record, already written to the run history. Throws only
    /// when the attempt could not start (unknown job, bad parameters, the job's run lock held
    /// by another process past `lockTimeout`); the daemon records that as a failed attempt.
    func run(job: String, options: RunOptions, config: HearthConfig) async throws -> RunRecord

    /// Checks that `job` can be run with `parameters` before it is queued (a run asked for
    /// over HTTP): throws ``UnknownJobError``, ``ParameterError`` or a set-up error.
    func check(job: String, parameters: [String: String], config: HearthConfig) throws

    /// Runs a call (``RunOptions/call``) and returns its record and its answer; throws as
    /// ``run(job:options:config:)``.
    func call(job: String, options: RunOptions, config: HearthConfig) async throws -> (RunRecord, CallAnswer)
}

extension SchedulerJobRunner {
    /// Scripted runners (tests) accept every run.
    package func check(job: String, parameters: [String: String], config: HearthConfig) throws {}

    /// Scripted runners (tests) answer a call `null` when its run succeeded.
    package func call(job: String, options: RunOptions, config: HearthConfig) async throws -> (RunRecord, CallAnswer) {
        let record = try await run(job: job, options: options, config: config)
        return (record, record.status.isFailure ? .failure(record.status) : .result(.null))
    }
}

/// Runs scheduled attempts through ``Runner`` (the per-job run lock, the timeout, the atomic
/// commit and the run record included).
package struct RunnerJobRunner: SchedulerJobRunner {
    package let data: any StorageBackend
    package let registry: JobRegistry
    package let clock: any HearthClock
    /// Outbound HTTP for jobs that call out.
    package let http: (any HTTPTransport)?
    package let logger: Logger
    /// Keeps each run's plan report for the status page; nil: not kept.
    package let plans: PlanCache?

    package init(
        data: any StorageBackend, registry: JobRegistry, clock: any HearthClock = SystemClock(), http: (any HTTPTransport)? = nil,
        logger: Logger = Logger(label: "hearth"), plans: PlanCache? = nil
    ) {
        self.data = data
        self.registry = registry
        self.clock = clock
        self.http = http
        self.logger = logger
        self.plans = plans
    }

    package func check(job: String, parameters: [String: String], config: HearthConfig) throws {
        let environment = JobEnvironment(notificationTypes: config.notificationTypes, http: http, pushProvider: config.push.provider)
        _ = try Runner(config: config, data: data, registry: registry, clock: clock, environment: environment, logger: logger).prepare(job, parameters: parameters)
    }

    package func run(job: String, options: RunOptions, config: HearthConfig) async throws -> RunRecord {
        try await outcome(job: job, options: options, config: config).record
    }

    package func call(job: String, options: RunOptions, config: HearthConfig) async throws -> (RunRecord, CallAnswer) {
        let outcome = try await outcome(job: job, options: options, config: config)
        return (outcome.record, outcome.answer ?? .failure(outcome.record.status))
    }

    private func outcome(job: String, options: RunOptions, config: HearthConfig) async throws -> RunOutcome {
        let environment = JobEnvironment(notificationTypes: config.notificationTypes, http: http, pushProvider: config.push.provider)
        let runner = Runner(config: config, data: data, registry: registry, clock: clock, environment: environment, logger: logger)
        let outcome = try await runner.run(job, options: options)
        plans?.add(outcome.plan, runID: outcome.record.runID)
        return outcome
    }
}
