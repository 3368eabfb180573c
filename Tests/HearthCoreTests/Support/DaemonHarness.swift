import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Logging
import ServiceLifecycle
import HearthTestSupport

/// A ``SchedulerDaemon`` on a temp data directory with a manual clock, run inside a
/// `ServiceGroup` the way `hearth daemon` runs it (minus the process signals).
final class DaemonHarness: Sendable {
    static let quiet = Logger(label: "test") { HearthLogHandler(label: $0, level: .critical, format: .text) }

    let dir: TempDirectory
    let data: DataDirectory
    let clock: ManualSchedulerClock
    let daemon: SchedulerDaemon
    let events: SchedulerEventRecorder
    let group: ServiceGroup
    let runTask: Task<Void, any Error>

    /// - Parameters:
    ///   - runner: nil: the real ``Runner`` with ``ProbeJob``.
    ///   - prepare: runs before the daemon starts (e.g. to write persisted scheduler state).
    ///   - config: the configuration for the temp data directory's path.
    init(
        clock: ManualSchedulerClock,
        runner: (any SchedulerJobRunner)? = nil,
        random: any RandomNumberGenerator & Sendable = SplitMix64(seed: 42),
        pinger: RunPinger? = nil,
        outbox: (any DaemonOutbox)? = nil,
        notifier: SystemdNotifier? = nil,
        reloadSource: (@Sendable () throws -> HearthConfig)? = nil,
        prepare: (DataDirectory) throws -> Void = { _ in },
        config: (String) -> HearthConfig
    ) throws {
        dir = try TempDirectory("hearth-sched")
        data = try DataDirectory(root: dir.path)
        try prepare(data)
        self.clock = clock
        let jobRunner = runner ?? RunnerJobRunner(data: data, registry: ProbeJob.registry, clock: clock, logger: Self.quiet)
        daemon = try SchedulerDaemon(
            config: config(dir.path), data: data, runner: jobRunner, clock: clock, random: random, pinger: pinger,
            outbox: outbox, notifier: notifier, reloadSource: reloadSource, logger: Self.quiet)
        events = SchedulerEventRecorder(daemon.events)
        group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [daemon], logger: Self.quiet))
        let group = self.group
        runTask = Task { try await group.run() }
    }

    /// What SIGTERM does: a graceful shutdown of the service group.
    func triggerGracefulShutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// Shuts down gracefully and waits for the daemon to return.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await runTask.value
        dir.remove()
    }

    /// The run records, by logical time then start.
    func records() throws -> [RunRecord] {
        try RunHistory(data: data, limit: 10_000).list().sorted { ($0.logicalTime, $0.start, $0.attempt) < ($1.logicalTime, $1.start, $1.attempt) }
    }
}
