#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
package import Logging
import ServiceLifecycle
import Synchronization
import HearthKit
package import HearthStore
package import HearthSchedule

/// The scheduler (docs/scheduler.md#running-the-daemon): runs every enabled job at the slots of
/// its schedule, with the slot as the run's logical time, and the runs writes start
/// (docs/triggers.md#what-the-daemon-does-with-writes).
///
/// The daemon is the loop: it sleeps until the earliest next slot, delayed start, retry,
/// triggered run or outbox pass (there is no polling loop), then hands each job's due slots to
/// its parts and starts what can start. Its parts:
/// - ``SlotPlanner``: which due slots run, are caught up or are skipped (on time or missed,
///   `catchUp`, overlap), the next slot from the previous one, jitter and retry delays.
/// - ``GatheredWrites`` (in ``TriggerFeed``): which writes start which runs.
/// - ``AttemptRunner``: one attempt, off the actor, started as its ``RunOrigin`` says.
/// - ``RunTickets``: runs asked for over HTTP and their waiters; ``PauseBook``: the paused
///   jobs; ``StatusBoard``: what the status page and the gauges read; ``Housekeeping``: outbox
///   passes and the heap trim; ``DaemonLife``: started, asleep, stopping, `sd_notify`.
///
/// What it does, in the terms of the docs:
/// - **Overlap.** A slot that comes while the job is busy (running, waiting for its jitter
///   delay, waiting for a retry, or with runs queued) is recorded as `skipped-overlap`, or with
///   `overlap = "queue"` waits for the job (at most one waiting slot). CLI runs are kept apart by
///   the per-job run lock the ``Runner`` holds.
/// - **Retries.** A failed, conflicting or timed-out attempt is retried `retries` times with
///   the same logical time (trigger `retry`, attempt 2, 3, …) after ``RetryBackoff`` delays.
/// - **Stopping** (graceful shutdown from ``ServiceGroup``, i.e. SIGTERM / SIGINT): nothing new
///   starts, queued and delayed runs are dropped, running ones may finish within
///   `shutdownGrace`, then they are cancelled (a cancelled run commits nothing) and `run()`
///   returns normally. Task cancellation stops at once, cancelling running jobs.
/// - **Pause** (docs/operations/monitoring.md#pause-and-resume): a paused job's slots are
///   recorded as `skipped-paused` (a running attempt finishes; queued runs and retries are
///   dropped); with `pauseAfterFailures = N` the daemon pauses a job itself.
/// - **Reload** (``reload()``, on SIGHUP): see ``apply(_:)``.
///
/// Time, the runner and randomness are injected, so tests drive it with a manual clock.
package actor SchedulerDaemon: Service {
    package struct Options: Sendable {
        /// A slot reached later than this after its time counts as missed (see `catchUp`).
        package var missedAfter: Duration = .seconds(60)
        /// How often the paused jobs are read from the backend (`hearth pause` / `resume` from
        /// another process take effect within it).
        package var pausePollInterval: Duration = .seconds(1)
        package init() {}
    }

    /// Daemons made by this process.
    private static let made = Atomic(0)

    nonisolated let eventLog: SchedulerEventLog
    nonisolated let attempts: AttemptRunner
    package internal(set) var config: HearthConfig
    var jobs: [String: JobState] = [:]
    /// The id of the next ``JobState/Active``.
    var nextActiveID = 1
    var slots: SlotPlanner
    var life: DaemonLife
    var pauses: PauseBook
    var feed: TriggerFeed
    var tickets = RunTickets()
    var board: StatusBoard
    var housekeeping: Housekeeping

    /// What the daemon does, in order (see ``SchedulerEvent``); at most
    /// ``SchedulerEventLog/unreadKept`` wait for a reader.
    package nonisolated var events: AsyncStream<SchedulerEvent> { eventLog.stream }
    nonisolated var clock: any SchedulerClock { attempts.clock }
    nonisolated var data: any StorageBackend { attempts.data }
    nonisolated var logger: Logger { attempts.logger }
    var metrics: DaemonMetrics? { board.metrics }

    /// - Parameters:
    ///   - reloadSource: reads the configuration again (for ``reload()``); nil: reload is a no-op.
    ///   - pinger: run monitoring for jobs with `pingUrl`; nil: no pings.
    ///   - outbox: delivers the messages runs commit (see ``DaemonOutbox``); nil: not delivered here.
    ///   - notifier: `sd_notify` target; nil when not under systemd.
    ///   - metrics: where runs, skipped slots and the gauges are recorded; nil: nowhere.
    /// - Throws: ``ConfigError`` when an enabled job's schedule is invalid.
    package init(
        config: HearthConfig, data: any StorageBackend, runner: any SchedulerJobRunner, clock: any SchedulerClock = SystemSchedulerClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), pinger: RunPinger? = nil,
        outbox: (any DaemonOutbox)? = nil, notifier: SystemdNotifier? = nil, reloadSource: (@Sendable () throws -> HearthConfig)? = nil,
        options: Options = Options(), metrics: DaemonMetrics? = nil, logger: Logger = Logger(label: "hearth")
    ) throws(ConfigError) {
        _ = try Self.schedules(for: config)
        self.config = config
        // Names this daemon in claims; unique even for daemons of one process made in the same
        // millisecond (tests).
        let made = Self.made.add(1, ordering: .relaxed).newValue
        let holder = "\(ProcessInfo.processInfo.hostName) pid=\(getpid()) start=\(Timestamp.format(Date()))\(made > 1 ? " daemon=\(made)" : "")"
        attempts = AttemptRunner(runner: runner, data: data, clock: clock, holder: holder, pinger: pinger, logger: logger)
        slots = SlotPlanner(missedAfter: options.missedAfter, random: AnyRandomNumberGenerator(random))
        life = DaemonLife(notifier: notifier, reloadSource: reloadSource)
        pauses = PauseBook(pollInterval: options.pausePollInterval)
        feed = TriggerFeed()
        board = StatusBoard(metrics: metrics)
        housekeeping = Housekeeping(outbox: outbox)
        eventLog = SchedulerEventLog()
    }

    /// The enabled jobs and their parsed schedules; a bad schedule is a ``ConfigError``.
    package static func schedules(for config: HearthConfig) throws(ConfigError) -> [String: (JobConfig, Schedule)] {
        var out: [String: (JobConfig, Schedule)] = [:]
        for (name, jc) in config.jobs where jc.enabled {
            do {
                out[name] = (jc, try Schedule.configured(jc.schedule, allowSeconds: config.allowSecondIntervals))
            } catch {
                throw ConfigError(file: config.file ?? "(built-in defaults)", "[jobs.\(name)] schedule: \(error)")
            }
        }
        return out
    }

    // MARK: - Service

    /// Schedules until a graceful shutdown (or cancellation), then drains and returns.
    package func run() async throws {
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await self.runLoop()
            } onCancel: {
                Task { await self.cancelNow() }
            }
        } onGracefulShutdown: {
            Task { await self.shutdown() }
        }
    }

    /// Starts a graceful stop (what SIGTERM does through the service group).
    package func shutdown() {
        guard !life.stopping else { return }
        life.stopping = true
        life.notify("STOPPING=1")
        logger.notice("stopping: no new runs will start")
        nudge()
    }

    /// Stops at once: running jobs are cancelled without waiting for `shutdownGrace`.
    package func cancelNow() {
        life.forceCancel = true
        if !life.stopping {
            life.stopping = true
            life.notify("STOPPING=1")
        }
        nudge()
    }

    // MARK: - The loop

    func runLoop() async throws {
        guard !life.started else { return }
        life.started = true
        life.alive = true
        defer { life.alive = false }
        life.startedAt = clock.now()
        setUp(now: clock.now())
        startPauseWatcher()
        let names = jobs.keys.sorted()
        life.notify("READY=1\nSTATUS=scheduling \(names.count) job(s)")
        logger.notice("scheduler started", metadata: ["jobs": "\(names.joined(separator: ", "))", "store": "\(data.location)"])
        emit(.ready(jobs: names))
        await startChangeFeed()
        while !life.stopping {
            tick(now: clock.now())
            if life.stopping { break }
            let wake = nextWakeUp()
            emit(.sleeping(until: wake))
            if life.notifier != nil, let status = statusLine(), status != life.lastStatus {
                life.notify("STATUS=\(status)")
                life.lastStatus = status
            }
            await sleep(until: wake)
        }
        await drain()
    }

    /// Handles every due slot and starts what can start.
    func tick(now: Date) {
        for name in jobs.keys.sorted() {
            handleDueSlots(name, now: now)
            startNext(name, now: now)
            startTriggeredRun(name, now: now)
        }
        startOutboxPassIfDue(now: now)
    }

    /// The earliest next slot, delayed start, retry, triggered run or outbox pass.
    func nextWakeUp() -> Date? {
        var wake: Date?
        for j in jobs.values {
            if j.enabled, let next = j.nextSlot { wake = min(wake ?? next, next) }
            if case .waiting(let until)? = j.active?.phase { wake = min(wake ?? until, until) }
        }
        if let due = nextTriggeredRun() { wake = min(wake ?? due, due) }
        if let due = housekeeping.nextPass { wake = min(wake ?? due, due) }
        return wake
    }

    /// Sleeps until `wake` (nil: until woken), or until ``nudge()``.
    func sleep(until wake: Date?) async {
        if life.pendingNudge {
            life.pendingNudge = false
            return
        }
        let clock = self.clock
        let deadline = wake ?? clock.now().addingTimeInterval(SystemSchedulerClock.maximumWait)
        let task = Task { _ = try? await clock.sleep(until: deadline) }
        life.sleeper = task
        await task.value
        life.sleeper = nil
        life.pendingNudge = false
    }

    /// Wakes the loop so it re-examines the jobs.
    func nudge() {
        if let sleeper = life.sleeper {
            sleeper.cancel()
        } else {
            life.pendingNudge = true
        }
    }

    func emit(_ event: SchedulerEvent) {
        eventLog.emit(event)
    }
}
