import Foundation
import HearthKit
import HearthStore
import HearthHost
import HearthTesting
import Logging
import ServiceLifecycle
import Synchronization

/// A ``SchedulerDaemon`` on an ``InMemoryStore`` (whose change feed starts triggered runs), with
/// a manual clock, the real ``Runner``, metrics, a captured log, and jobs made of closures
/// (``TriggerJobs``), configured from TOML through the real ``ConfigLoader``.
final class TriggerHarness: Sendable {
    let store: InMemoryStore
    let clock: ManualSchedulerClock
    let daemon: SchedulerDaemon
    let events: SchedulerEventRecorder
    let metrics: DaemonMetrics
    let log: CapturingLogHandler.Store
    let config: HearthConfig
    let group: ServiceGroup
    let runTask: Task<Void, any Error>

    /// - Parameters:
    ///   - store: shared by several daemons when given; a new one otherwise.
    ///   - reloadSource: what ``SchedulerDaemon/reload()`` reads (TOML text).
    init(
        clock: ManualSchedulerClock, store: InMemoryStore? = nil, jobs: [JobDefinition], toml: String,
        reloadSource: (@Sendable () -> String)? = nil
    ) throws {
        self.store = try store ?? InMemoryStore()
        self.clock = clock
        let registry = JobRegistry(definitions: jobs)
        let loader = ConfigLoader(jobs: registry.descriptors, environment: [:])
        config = try loader.parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
        let (logger, log) = CapturingLogHandler.logger()
        self.log = log
        metrics = DaemonMetrics()
        var reload: (@Sendable () throws -> HearthConfig)?
        if let reloadSource {
            reload = { () throws -> HearthConfig in try loader.parse(reloadSource(), file: "/etc/hearth/hearth.toml", dataOverride: "/tmp") }
        }
        daemon = try SchedulerDaemon(
            config: config, data: self.store, runner: RunnerJobRunner(data: self.store, registry: registry, clock: clock, logger: DaemonHarness.quiet),
            clock: clock, random: SplitMix64(seed: 42), reloadSource: reload, metrics: metrics, logger: logger)
        events = SchedulerEventRecorder(daemon.events)
        group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [daemon], logger: DaemonHarness.quiet))
        let group = self.group
        runTask = Task { try await group.run() }
    }

    /// Shuts down gracefully and waits for the daemon to return.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await runTask.value
    }

    /// The job's run records, oldest first.
    func records(_ job: String) throws -> [RunRecord] {
        try store.runRecords(job: job, status: nil, limit: nil).sorted { ($0.start, $0.logicalTime, $0.attempt) < ($1.start, $1.logicalTime, $1.attempt) }
    }

    /// The Prometheus lines of `metric` (its name and labels, then the value).
    func metricLines(_ metric: String) -> [String] {
        String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasPrefix(metric) }
    }
}

/// Jobs for trigger tests: each reads and writes the collections it declares, records what
/// each run was told (``Seen``), then does what its closure says.
enum TriggerJobs {
    /// One run as the job saw it.
    struct Seen: Sendable, Equatable {
        var job: String
        var logicalTime: Date
        var changes: ChangedDocuments?
    }

    /// What the jobs of one test saw, in order.
    final class Log: Sendable {
        private let runs = Mutex<[Seen]>([])
        func append(_ seen: Seen) { runs.withLock { $0.append(seen) } }
        var all: [Seen] { runs.withLock { $0 } }
        func of(_ job: String) -> [Seen] { all.filter { $0.job == job } }
    }

    struct ClosureJob: RunnableJob {
        let name: String
        let log: Log
        let body: @Sendable (JobContext) async throws -> Void

        func run(_ context: JobContext) async throws {
            log.append(Seen(job: name, logicalTime: context.logicalTime, changes: context.changes))
            try await body(context)
        }
    }

    static func job(
        _ name: String, reads: [String], writes: [String] = [], triggers: [String], log: Log,
        body: @escaping @Sendable (JobContext) async throws -> Void = { _ in }
    ) -> JobDefinition {
        let descriptor = JobDescriptor(name: name, summary: "trigger test job", defaultSchedule: "@daily", reads: reads, writes: writes, triggers: triggers)
        return JobDefinition(descriptor: descriptor) { _, _ in ClosureJob(name: name, log: log, body: body) }
    }

    /// The tests' usual job: `settle`, reading and triggered by `transactions`.
    static func settle(log: Log, body: @escaping @Sendable (JobContext) async throws -> Void = { _ in }) -> JobDefinition {
        job("settle", reads: ["transactions"], triggers: ["transactions"], log: log, body: body)
    }

    /// For each document of `from` the run was told about, creates `to/b<n+1>` with `n + 1`
    /// (`n` read from the document): two such jobs pointed at each other relay a write back and
    /// forth.
    static func relay(from: String, to: String) -> @Sendable (JobContext) async throws -> Void {
        { ctx in
            for path in ctx.changes?.paths(in: from) ?? [] {
                guard let doc = try ctx.document(path), let n = doc["n"]?.intValue else { continue }
                ctx.create(try DocumentPath(to, "b\(n + 1)"), JSONObject([("n", .int(n + 1))]))
            }
        }
    }
}
