public import Logging
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// What the daemon needs to run one attempt of a job. ``RunnerJobRunner`` runs it for real
/// through ``Runner``; tests may substitute a scripted runner.
public protocol SchedulerJobRunner: Sendable {
    /// Runs one attempt with `config` (the daemon's current configuration, which changes on
    /// SIGHUP). Returns the attempt's record, already written to the run history. Throws only
    /// when the attempt could not start (unknown job, bad parameters, the job's run lock held
    /// by another process past `lockTimeout`); the daemon records that as a failed attempt.
    func run(job: String, options: RunOptions, config: HearthConfig) async throws -> RunRecord
}

/// Runs scheduled attempts through ``Runner`` (the per-job run lock, the timeout, the atomic
/// commit and the run record included).
public struct RunnerJobRunner: SchedulerJobRunner {
    public let data: DataDirectory
    public let registry: JobRegistry
    public let clock: any HearthClock
    /// Outbound HTTP for jobs that call out.
    public let http: (any HTTPTransport)?
    public let logger: Logger

    public init(data: DataDirectory, registry: JobRegistry, clock: any HearthClock = SystemClock(), http: (any HTTPTransport)? = nil, logger: Logger = Logger(label: "hearth")) {
        self.data = data
        self.registry = registry
        self.clock = clock
        self.http = http
        self.logger = logger
    }

    public func run(job: String, options: RunOptions, config: HearthConfig) async throws -> RunRecord {
        let environment = JobEnvironment(notificationTypes: config.notificationTypes, http: http, pushProvider: config.push.provider)
        let runner = Runner(config: config, data: data, registry: registry, clock: clock, environment: environment, logger: logger)
        return try await runner.run(job, options: options).record
    }
}
