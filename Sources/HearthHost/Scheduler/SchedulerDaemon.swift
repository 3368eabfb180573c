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
import HearthOutbound
import HearthHTTP

/// The scheduler (docs/scheduler.md#running-the-daemon): runs every enabled job at the slots of its schedule, with the slot
/// as the run's logical time.
///
/// How it works:
/// - **Slots.** Each job's next slot is computed from its previous slot (never from the
///   clock), and the daemon sleeps until the earliest next slot, delayed start or retry of any
///   job: there is no polling loop. The last slot dealt with is persisted per job in
///   `.hearth/scheduler/<job>.json` (``SchedulerStateStore``).
/// - **On time or missed.** A slot the daemon reaches within ``Options/missedAfter`` (60 s) of
///   its time runs with trigger `schedule`. Older slots, and every slot but the latest when
///   several are due at once, were missed — the daemon was down, the machine slept, or the
///   clock jumped — and are handled per `catchUp`: `none` records each as
///   `skipped-catch-up`; `latest` runs the most recent once (trigger `catch-up`) and records
///   the others, or records them all when a slot is also due on time right now; `all` runs each
///   in order with its own logical time. Slots older than `catchUpWindow` are ignored (logged
///   once).
/// - **Overlap.** A slot that comes while the job is busy (running, waiting for its jitter
///   delay, waiting for a retry, or with runs queued) is recorded as `skipped-overlap`, or with
///   `overlap = "queue"` waits for the job (at most one waiting slot; further ones are skipped).
///   CLI runs are kept apart by the per-job run lock the ``Runner`` holds.
/// - **Retries.** A failed, conflicting or timed-out attempt is retried `retries` times with
///   the same logical time (trigger `retry`, attempt 2, 3, …) after ``RetryBackoff`` delays.
/// - **Jitter.** Scheduled and catch-up runs start a random `[0, jitter]` after their slot.
/// - **Stopping** (graceful shutdown from ``ServiceGroup``, i.e. SIGTERM / SIGINT): nothing new
///   starts, queued and delayed runs are dropped, running ones may finish within
///   `shutdownGrace`, then they are cancelled (a cancelled run commits nothing) and `run()`
///   returns normally. Task cancellation stops at once, cancelling running jobs.
/// - **Pause** (docs/operations/monitoring.md#pause-and-resume): the paused jobs are read from
///   the backend at start and every ``Options/pausePollInterval``; a paused job's slots are
///   recorded as `skipped-paused` (a running attempt finishes; queued runs and retries are
///   dropped). With `pauseAfterFailures = N` the daemon pauses a job itself after N failed
///   attempts in a row and queues a `job.paused` event.
/// - **Reload** (``reload()``, on SIGHUP): the configuration is read again; if it is invalid
///   the old one stays and the reason is logged. A job whose schedule or zone changed starts
///   afresh from now; a disabled job gets no new slots (a running attempt finishes).
/// - **Triggers** (docs/triggers.md#what-the-daemon-does-with-writes): writes the store's change
///   feed reports start runs of the jobs they trigger (``SchedulerDaemon+Triggers.swift``).
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

    struct Pending: Sendable {
        var slot: Date
        var trigger: RunRecord.Trigger
        var attempt: Int
        /// A run asked for over HTTP (``requestRun(job:parameters:dryRun:force:)``): its
        /// parameters, whether it is a dry run, whether it may run while the job is paused, and
        /// its ticket (the first attempt's run id, which its waiters know it by).
        var parameters: [String: String] = [:]
        var dryRun = false
        var force = false
        var ticket: String?
        /// A run started by writes (``startTriggeredRun(_:now:)``): the writes it takes, kept for
        /// its retries.
        var changes: TriggerChanges?
    }

    enum Phase {
        case waiting(until: Date)
        case running(Task<Void, Never>)
    }

    struct Active {
        var run: Pending
        var phase: Phase
        var id: Int
    }

    struct JobState {
        var config: JobConfig
        var schedule: Schedule
        var lastSlot: Date
        var nextSlot: Date?
        var enabled = true
        var active: Active?
        var queue: [Pending] = []

        var isBusy: Bool { active != nil || !queue.isEmpty }
        var isRunning: Bool {
            if case .running? = active?.phase { return true }
            return false
        }
    }

    /// What the daemon does, in order (see ``SchedulerEvent``); at most ``unreadEventsKept``
    /// wait for a reader.
    package nonisolated let events: AsyncStream<SchedulerEvent>
    static let unreadEventsKept = 4096
    /// Daemons made by this process.
    private static let made = Atomic(0)
    private let eventSink: AsyncStream<SchedulerEvent>.Continuation

    /// Once no run and no outbox pass is going, the heap is trimmed if a run or a pass since
    /// the last trim took at least this long (seconds): see ``trimHeapWhenIdle(after:)``.
    static let trimAfterRunsOf: TimeInterval = 0.1
    /// A run or outbox pass of ``trimAfterRunsOf`` or more ended since the heap was last trimmed.
    var heapToTrim = false

    /// What a large run decoded and dropped (documents, a listing of a million ids) stays in
    /// glibc's arenas: once no run is going, the daemon hands it back, so it rests at its idle
    /// size between runs, not at its largest run's (docs/performance.md#daemon-idle-cost). The
    /// same after an outbox pass that delivered a big run's messages. Not while another run or
    /// a pass still holds its own (runs at start go together), and not after quick runs alone:
    /// a one-gift triggered run is not made to pay for the walk over the arenas.
    func trimHeapWhenIdle(after record: RunRecord?) {
        if let record, record.end.timeIntervalSince(record.start) >= Self.trimAfterRunsOf { heapToTrim = true }
        guard heapToTrim, runningJobs().isEmpty, outboxTask == nil else { return }
        heapToTrim = false
        Task.detached { HeapTrim.releaseFreePages() }
    }

    nonisolated let clock: any SchedulerClock
    let runner: any SchedulerJobRunner
    let data: any StorageBackend
    /// Names this daemon in slot claims (several daemons on one store).
    let claimHolder: String
    let options: Options
    let pinger: RunPinger?
    let outbox: (any DaemonOutbox)?
    let notifier: SystemdNotifier?
    let reloadSource: (@Sendable () throws -> HearthConfig)?
    let logger: Logger
    let metrics: DaemonMetrics?
    var random: AnyRandomNumberGenerator

    /// Paused jobs as last read from the backend.
    var pauses: [String: JobPause] = [:]
    /// Bumped when the daemon pauses a job itself (see ``pausesRead(_:generation:)``).
    var pauseGeneration = 0
    /// Failed attempts in a row per job (from the run history at start), for `pauseAfterFailures`.
    var consecutiveFailures: [String: Int] = [:]
    /// Per job, the newest record and the end of the newest success (from the run history at start).
    var lastRecords: [String: RunRecord] = [:]
    var lastSuccess: [String: Date] = [:]
    var startedAt: Date?
    var loopAlive = false
    var pauseWatcherTask: Task<Void, Never>?
    /// Runs asked for over HTTP and not finished, by ticket: their job and whether they run.
    var tickets: [String: Ticket] = [:]
    /// The final records of the latest finished tickets (nil: dropped before it ran).
    var finishedTickets: [String: RunRecord?] = [:]
    var finishedOrder: [String] = []
    var runWaiters: [String: [CheckedContinuation<RunRecord?, Never>]] = [:]

    package private(set) var config: HearthConfig
    var jobs: [String: JobState] = [:]
    var stopping = false
    var forceCancel = false
    var started = false
    var nextActiveID = 1
    /// When the outbox next needs a delivery pass (nil: nothing pending, as far as we know).
    var outboxDue: Date?
    var outboxTask: Task<Void, Never>?
    /// Per job, the writes its next triggered run takes (docs/triggers.md#what-the-daemon-does-with-writes).
    var triggerChanges: [String: TriggerChanges] = [:]
    /// The task reading the store's change feed, the collections it watches, and a number that
    /// changes each time a feed is (re)opened.
    var changeFeedTask: Task<Void, Never>?
    var watchedCollections: Set<String> = []
    var changeFeedGeneration = 0
    /// Jobs that read everything once the feed being opened is open (at start, after a reload
    /// that changed the watched collections).
    var awaitingChangeFeed: Set<String> = []
    /// Whether "the store has no change feed" was logged.
    var noChangeFeedLogged = false
    private var sleeper: Task<Void, Never>?
    private var pendingNudge = false

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
        self.data = data
        self.runner = runner
        self.clock = clock
        self.random = AnyRandomNumberGenerator(random)
        self.pinger = pinger
        self.outbox = outbox
        self.notifier = notifier
        self.reloadSource = reloadSource
        self.options = options
        self.logger = logger
        self.metrics = metrics
        // Unique even for daemons of one process made in the same millisecond (tests).
        let made = Self.made.add(1, ordering: .relaxed).newValue
        self.claimHolder = "\(ProcessInfo.processInfo.hostName) pid=\(getpid()) start=\(Timestamp.format(Date()))\(made > 1 ? " daemon=\(made)" : "")"
        // Read by tests (and anyone watching); nobody reads them in `hearth daemon`, so only the
        // newest are kept, not one per write since the start.
        (events, eventSink) = AsyncStream.makeStream(of: SchedulerEvent.self, bufferingPolicy: .bufferingNewest(Self.unreadEventsKept))
    }

    /// The enabled jobs and their parsed schedules; a bad schedule is a ``ConfigError``.
    package static func schedules(for config: HearthConfig) throws(ConfigError) -> [String: (JobConfig, Schedule)] {
        var out: [String: (JobConfig, Schedule)] = [:]
        for (name, jc) in config.jobs where jc.enabled {
            do {
                out[name] = (jc, try Schedule(parsing: jc.schedule, allowSeconds: config.allowSecondIntervals))
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
        guard !stopping else { return }
        stopping = true
        notifier?.notify("STOPPING=1")
        logger.notice("stopping: no new runs will start")
        nudge()
    }

    /// Stops at once: running jobs are cancelled without waiting for `shutdownGrace`.
    package func cancelNow() {
        forceCancel = true
        if !stopping {
            stopping = true
            notifier?.notify("STOPPING=1")
        }
        nudge()
    }

    /// Reads the configuration again through `reloadSource` and applies it; an invalid one is
    /// logged and the current one kept.
    package func reload() {
        guard let reloadSource else { return }
        notifier?.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
        do {
            let loaded = try reloadSource()
            try apply(loaded)
            logger.notice("configuration reloaded", metadata: ["file": "\(loaded.file ?? "(built-in defaults)")"])
            emit(.reloaded)
        } catch {
            logger.error("configuration reload failed; keeping the previous configuration: \(error)")
            emit(.reloadFailed(reason: "\(error)"))
        }
        notifier?.notify("READY=1")
    }

    /// Applies a new configuration (see the type's documentation).
    package func apply(_ newConfig: HearthConfig) throws(ConfigError) {
        let schedules = try Self.schedules(for: newConfig)
        try outbox?.reload(newConfig)
        var replacement = newConfig
        if replacement.dataDir != config.dataDir {
            logger.warning("dataDir changed in the configuration; the daemon keeps using \(config.dataDir) until it is restarted")
            replacement.dataDir = config.dataDir
        }
        config = replacement
        guard started else { return }
        let previousTriggers = activeTriggers()
        let now = clock.now()
        for name in config.jobs.keys.sorted() {
            if let (jc, schedule) = schedules[name] {
                if var j = jobs[name] {
                    let changed = j.schedule != schedule || j.config.timeZone != jc.timeZone || !j.enabled
                    j.config = jc
                    j.schedule = schedule
                    if changed {
                        j.enabled = true
                        j.lastSlot = max(j.lastSlot, now)
                        j.nextSlot = schedule.nextFire(after: j.lastSlot, in: jc.timeZone)
                        logger.notice("schedule changed; starting from now", metadata: ["job": "\(name)", "schedule": "\(jc.schedule)", "next": "\(j.nextSlot.map(Timestamp.format) ?? "none")"])
                    }
                    jobs[name] = j
                    if changed { persist(name) }
                } else {
                    jobs[name] = JobState(config: jc, schedule: schedule, lastSlot: now, nextSlot: schedule.nextFire(after: now, in: jc.timeZone))
                    logger.notice("job enabled", metadata: ["job": "\(name)"])
                    persist(name)
                }
            } else if var j = jobs[name], j.enabled {
                j.enabled = false
                j.nextSlot = nil
                j.queue.removeAll()
                if case .waiting? = j.active?.phase { j.active = nil }
                jobs[name] = j
                logger.notice("job disabled; it gets no new slots", metadata: ["job": "\(name)"])
            }
        }
        triggersReconfigured(previous: previousTriggers)
        nudge()
    }

    // MARK: - The loop

    func runLoop() async throws {
        guard !started else { return }
        started = true
        loopAlive = true
        defer { loopAlive = false }
        startedAt = clock.now()
        setUp(now: clock.now())
        startPauseWatcher()
        let names = jobs.keys.sorted()
        notifier?.notify("READY=1\nSTATUS=scheduling \(names.count) job(s)")
        logger.notice("scheduler started", metadata: ["jobs": "\(names.joined(separator: ", "))", "store": "\(data.location)"])
        emit(.ready(jobs: names))
        await startChangeFeed()
        var lastStatus = ""
        while !stopping {
            tick(now: clock.now())
            if stopping { break }
            let wake = nextWakeUp()
            emit(.sleeping(until: wake))
            if let notifier, let status = statusLine(), status != lastStatus {
                notifier.notify("STATUS=\(status)")
                lastStatus = status
            }
            await sleep(until: wake)
        }
        await drain()
    }

    /// Builds the job states from the configuration and the persisted state.
    func setUp(now: Date) {
        if outbox != nil { outboxDue = now }
        let schedules = (try? Self.schedules(for: config)) ?? [:]
        do { pauses = try data.pauses() } catch {
            logger.error("cannot read the paused jobs; none is taken as paused until they can be read: \(error)")
        }
        metrics?.prepare(jobs: config.jobs.keys.sorted())
        for name in config.jobs.keys { loadHistory(name) }
        for (name, (jc, schedule)) in schedules {
            var last = now
            if let saved = data.schedulerState(job: name) {
                if saved.schedule == jc.schedule && saved.timeZone == jc.timeZone.identifier {
                    last = saved.lastSlot
                    if last > now.addingTimeInterval(60) {
                        logger.warning("the clock is behind this job's last slot; slots up to it are not run again", metadata: ["job": "\(name)", "lastSlot": "\(Timestamp.format(last))"])
                    }
                } else {
                    logger.notice("schedule changed while the daemon was stopped; starting from now", metadata: ["job": "\(name)", "schedule": "\(jc.schedule)"])
                }
            }
            jobs[name] = JobState(config: jc, schedule: schedule, lastSlot: last, nextSlot: schedule.nextFire(after: last, in: jc.timeZone))
            if last == now { persist(name) }
        }
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

    /// One outbox pass at a time, when something is due.
    func startOutboxPassIfDue(now: Date) {
        guard !stopping, let outbox, outboxTask == nil, let due = outboxDue, due <= now else { return }
        outboxDue = nil
        outboxTask = Task {
            // Monotonic time, only to tell a big pass from a small one.
            let started = ContinuousClock.now
            let next = await outbox.deliverDue(at: now)
            self.outboxPassFinished(next: next, took: ContinuousClock.now - started)
        }
    }

    func outboxPassFinished(next: Date?, took: Duration) {
        outboxTask = nil
        if took >= .seconds(Self.trimAfterRunsOf) { heapToTrim = true }
        if let next {
            // A message that is still due (e.g. claimed by a CLI deliverer right now) is tried
            // again a second later, not in a tight loop.
            let due = max(next, clock.now().addingTimeInterval(1))
            outboxDue = min(outboxDue ?? due, due)
        }
        emit(.outboxPassed(nextDue: outboxDue))
        trimHeapWhenIdle(after: nil)
        nudge()
    }

    func handleDueSlots(_ name: String, now: Date) {
        guard var j = jobs[name], j.enabled, let next = j.nextSlot, next <= now else { return }
        let policy = j.config.policy
        let zone = j.config.timeZone
        let windowStart = now - policy.catchUpWindow
        let lateBound = now - options.missedAfter
        var due: [Date]
        if next < windowStart {
            metrics?.slotsSkipped(job: name, reason: .outsideWindow, count: j.schedule.slots(from: next, through: windowStart, in: zone, limit: 100_000).count)
            logger.notice("slots missed before the catch-up window are not caught up", metadata: [
                "job": "\(name)", "from": "\(Timestamp.format(next))", "windowStart": "\(Timestamp.format(windowStart))",
                "catchUpWindow": "\(DurationFormat.format(policy.catchUpWindow))",
            ])
            due = j.schedule.slots(from: windowStart, through: now, in: zone)
        } else {
            due = j.schedule.slots(from: next, through: now, in: zone)
            if due.first != next { due.insert(next, at: 0) }
        }
        if pauses[name] != nil {
            recordSkips(name, due, status: .skippedPaused, now: now)
            j.lastSlot = due.last ?? windowStart
            j.nextSlot = j.schedule.nextFire(after: j.lastSlot, in: zone)
            jobs[name] = j
            persist(name)
            return
        }
        // Only the latest due slot can be on time: when several are due at once the daemon was
        // not awake for the earlier ones (stopped, asleep, clock jump), however recent they are.
        var missed = due
        var onTime: [Date] = []
        if let last = due.last, last >= lateBound {
            missed.removeLast()
            onTime = [last]
        }
        let wasBusy = j.isBusy
        jobs[name] = j

        if let first = missed.first, let last = missed.last {
            logger.notice("missed \(missed.count) slot(s) (the daemon was stopped, the system slept or the clock jumped)", metadata: [
                "job": "\(name)", "from": "\(Timestamp.format(first))", "to": "\(Timestamp.format(last))", "catchUp": "\(policy.catchUp.rawValue)",
            ])
            switch policy.catchUp {
            case .none:
                recordSkips(name, missed, status: .skippedCatchUp, now: now)
            case .latest:
                if onTime.isEmpty {
                    recordSkips(name, Array(missed.dropLast()), status: .skippedCatchUp, now: now)
                    enqueue(name, Pending(slot: last, trigger: .catchUp, attempt: 1))
                } else {
                    recordSkips(name, missed, status: .skippedCatchUp, now: now)
                }
            case .all:
                for slot in missed { enqueue(name, Pending(slot: slot, trigger: .catchUp, attempt: 1)) }
            }
        }
        if let slot = onTime.first {
            if wasBusy {
                overlap(name, slot: slot, now: now)
            } else {
                enqueue(name, Pending(slot: slot, trigger: .schedule, attempt: 1))
            }
        }

        j = jobs[name] ?? j
        j.lastSlot = due.last ?? windowStart
        j.nextSlot = j.schedule.nextFire(after: j.lastSlot, in: zone)
        jobs[name] = j
        persist(name)
    }

    /// A slot that came while the job is busy.
    func overlap(_ name: String, slot: Date, now: Date) {
        guard let j = jobs[name] else { return }
        switch j.config.policy.overlap {
        case .skip:
            logger.notice("slot skipped: the previous run is still going (overlap = skip)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
            recordSkips(name, [slot], status: .skippedOverlap, now: now)
        case .queue:
            if j.queue.contains(where: { $0.trigger == .schedule }) {
                logger.notice("slot skipped: a run is already waiting (overlap = queue holds one)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
                recordSkips(name, [slot], status: .skippedOverlap, now: now)
            } else {
                logger.info("slot queued behind the running one (overlap = queue)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
                enqueue(name, Pending(slot: slot, trigger: .schedule, attempt: 1))
            }
        }
    }

    func enqueue(_ name: String, _ pending: Pending) {
        jobs[name]?.queue.append(pending)
        emit(.queued(job: name, logicalTime: pending.slot, trigger: pending.trigger))
    }

    /// Writes a `skipped-…` record per slot (at most `historyLimit`, the newest; more would be
    /// pruned at once).
    func recordSkips(_ name: String, _ slots: [Date], status: RunRecord.Status, now: Date) {
        guard !slots.isEmpty else { return }
        let data = self.data
        let kept = slots.suffix(config.historyLimit)
        if kept.count < slots.count {
            logger.notice("only the newest \(kept.count) of \(slots.count) skipped slots are recorded (historyLimit)", metadata: ["job": "\(name)"])
        }
        if data.features.contains(.sharedByDaemons) {
            // Several daemons share the store: a slot one of them skips another may run (or
            // skip too). The slot's claim decides: only its holder records the skip (and counts
            // it, and shows it), and the record ends the claim
            // (docs/storage/postgres.md#several-daemons).
            let (holder, lease, logger, keep) = (claimHolder, config.storage.leaseTimeout, self.logger, config.historyLimit)
            Task {
                var claimed = 0
                for slot in kept {
                    let record = Self.skipRecord(name, slot, status: status, now: now)
                    do {
                        guard try await data.claimSlot(job: name, logicalTime: slot, holder: holder, lease: lease) else { continue }
                        try await data.saveRecord(record)
                        try data.pruneRunRecords(job: name, keep: keep)
                        claimed += 1
                        self.noteSkip(record)
                    } catch {
                        logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
                    }
                }
                if claimed > 0 { self.countSkips(name, status: status, count: claimed) }
            }
            return
        }
        countSkips(name, status: status, count: slots.count)
        for slot in kept {
            let record = Self.skipRecord(name, slot, status: status, now: now)
            do { try data.writeRecord(record) } catch {
                logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
            }
            noteSkip(record)
        }
        try? data.pruneRunRecords(job: name, keep: config.historyLimit)
    }

    static func skipRecord(_ name: String, _ slot: Date, status: RunRecord.Status, now: Date) -> RunRecord {
        RunRecord(
            runID: Runner.makeRunID(job: name, start: slot), job: name, trigger: status == .skippedCatchUp ? .catchUp : .schedule,
            logicalTime: slot, start: now, end: now, attempt: 1, status: status, dryRun: false)
    }

    func countSkips(_ name: String, status: RunRecord.Status, count: Int) {
        switch status {
        case .skippedOverlap: metrics?.slotsSkipped(job: name, reason: .overlap, count: count)
        case .skippedCatchUp: metrics?.slotsSkipped(job: name, reason: .catchUp, count: count)
        case .skippedPaused: metrics?.slotsSkipped(job: name, reason: .paused, count: count)
        default: break
        }
    }

    func noteSkip(_ record: RunRecord) {
        lastRecords[record.job] = record
        emit(.skipped(job: record.job, logicalTime: record.logicalTime, status: record.status))
    }

    /// Starts the job's next queued run, or its delayed one when its time has come.
    func startNext(_ name: String, now: Date) {
        guard !stopping, var j = jobs[name] else { return }
        // A paused job starts only runs asked for with `force`.
        if pauses[name] != nil, !((j.active?.run ?? j.queue.first)?.force ?? false) { return }
        if j.active == nil, !j.queue.isEmpty {
            let pending = j.queue.removeFirst()
            let delay = pending.trigger == .retry || pending.trigger == .runNow ? Duration.zero : RetryBackoff.jitter(j.config.policy.jitter, using: &random)
            j.active = Active(run: pending, phase: .waiting(until: now + delay), id: nextActiveID)
            nextActiveID += 1
            jobs[name] = j
            if delay > .zero {
                emit(.delayed(job: name, logicalTime: pending.slot, until: now + delay))
                logger.info("run delayed by jitter", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(pending.slot))", "delay": "\(DurationFormat.format(delay))"])
            }
        }
        guard let active = j.active, case .waiting(let until) = active.phase, until <= now else { return }
        launch(name, active)
    }

    func launch(_ name: String, _ active: Active) {
        guard let j = jobs[name] else { return }
        let pending = active.run
        let config = self.config
        let jobConfig = j.config
        let (runner, pinger, clock, logger, data, holder) = (self.runner, self.pinger, self.clock, self.logger, self.data, self.claimHolder)
        let id = active.id
        emit(.started(job: name, logicalTime: pending.slot, trigger: pending.trigger, attempt: pending.attempt))
        if let ticket = pending.ticket { tickets[ticket]?.running = true }
        let task = Task {
            if pending.changes != nil {
                let (record, changes) = await Self.triggeredAttempt(name, pending, config: config, runner: runner, clock: clock, data: data, holder: holder, logger: logger)
                self.triggeredAttemptFinished(name, id: id, record: record, changes: changes)
                return
            }
            let record = await Self.attempt(
                name, pending, config: config, jobConfig: jobConfig, runner: runner, pinger: pinger, clock: clock, data: data, holder: holder, logger: logger)
            self.attemptFinished(name, id: id, record: record)
        }
        jobs[name]?.active = Active(run: pending, phase: .running(task), id: id)
    }

    /// Runs `body` while renewing this daemon's claim on the slot every third of the lease, so
    /// the lease expires only when the daemon is gone, never under a run that is still going
    /// (waiting for the job's lock included).
    nonisolated static func renewingClaim<T: Sendable>(
        job: String, slot: Date, data: any StorageBackend, holder: String, lease: Duration, _ body: @Sendable () async throws -> T
    ) async throws -> T {
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

    /// One attempt, off the actor: pings, the run, and a record when the run could not start;
    /// nil when another daemon sharing the store holds the slot (nothing ran here).
    nonisolated static func attempt(
        _ name: String, _ pending: Pending, config: HearthConfig, jobConfig: JobConfig, runner: any SchedulerJobRunner,
        pinger: RunPinger?, clock: any SchedulerClock, data: any StorageBackend, holder: String, logger: Logger
    ) async -> RunRecord? {
        // Several daemons on one store: exactly one runs a slot (docs/storage/postgres.md#several-daemons).
        // First the slots of this job whose daemon died mid-run (lease expired, no record).
        for orphan in (try? await data.expiredSlotClaims(job: name)) ?? [] {
            guard (try? await data.claimSlot(job: name, logicalTime: orphan, holder: holder, lease: config.storage.leaseTimeout)) == true else { continue }
            logger.notice("taking over a slot whose daemon stopped mid-run (lease expired)", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(orphan))"])
            _ = try? await renewingClaim(job: name, slot: orphan, data: data, holder: holder, lease: config.storage.leaseTimeout) {
                try await runner.run(job: name, options: RunOptions(trigger: .catchUp, logicalTime: orphan, attempt: 1), config: config)
            }
        }
        let options = RunOptions(
            trigger: pending.trigger, logicalTime: pending.slot, dryRun: pending.dryRun, parameters: pending.parameters, attempt: pending.attempt,
            runID: pending.attempt == 1 ? pending.ticket : nil)
        // A run asked for over HTTP is this daemon's alone (no other daemon knows of it): no
        // slot to claim.
        if pending.trigger == .runNow || pending.ticket != nil {
            logger.info("run starting", metadata: ["job": "\(name)", "trigger": "\(pending.trigger.rawValue)", "attempt": "\(pending.attempt)", "dryRun": "\(pending.dryRun)"])
            do { return try await runner.run(job: name, options: options, config: config) } catch {
                return await failedRecord(
                    name, pending, status: error is CancellationError ? .cancelled : .failed, error: String(describing: error), clock: clock, data: data,
                    logger: logger, runID: options.runID, dryRun: pending.dryRun)
            }
        }
        do {
            if try await !data.claimSlot(job: name, logicalTime: pending.slot, holder: holder, lease: config.storage.leaseTimeout) {
                // The normal case with several daemons: another one runs (or ran) it. Nothing to record.
                logger.debug("slot claimed by another daemon", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(pending.slot))"])
                return nil
            }
        } catch {
            // Not run: another daemon may hold it. A failure, retried per the job's policy.
            let now = clock.now()
            var record = RunRecord(
                runID: Runner.makeRunID(job: name, start: now), job: name, trigger: pending.trigger, logicalTime: pending.slot,
                start: now, end: now, attempt: pending.attempt, status: .failed, dryRun: false)
            record.error = "cannot claim the slot: \(error)"
            return record
        }
        // Logged once the slot is this daemon's: with several daemons, the others stay quiet.
        logger.info("run starting", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(pending.slot))", "trigger": "\(pending.trigger.rawValue)", "attempt": "\(pending.attempt)"])
        if let url = jobConfig.pingURL, let pinger { await pinger.ping(url, .start, job: name) }
        var record: RunRecord
        do {
            record = try await renewingClaim(job: name, slot: pending.slot, data: data, holder: holder, lease: config.storage.leaseTimeout) {
                try await runner.run(job: name, options: options, config: config)
            }
        } catch {
            record = await failedRecord(
                name, pending, status: error is CancellationError ? .cancelled : .failed, error: String(describing: error), clock: clock, data: data, logger: logger)
        }
        if let url = jobConfig.pingURL, let pinger {
            await pinger.ping(url, record.status.isFailure ? .fail : .success, job: name)
        }
        return record
    }

    func attemptFinished(_ name: String, id: Int, record: RunRecord?) {
        guard var j = jobs[name], let active = j.active, active.id == id else { return }
        j.active = nil
        jobs[name] = j
        trimHeapWhenIdle(after: record)
        let pending = active.run
        guard let record else {
            // Another daemon holds the slot (docs/operations/high-availability.md), or took the
            // writes of a triggered run: not a run here.
            if pending.changes != nil { emit(.changesClaimedElsewhere(job: name)) }
            jobs[name] = j
            finishTicket(pending.ticket, nil)
            nudge()
            return
        }
        var metadata: Logger.Metadata = [
            "job": "\(name)", "logicalTime": "\(Timestamp.format(pending.slot))", "trigger": "\(pending.trigger.rawValue)",
            "attempt": "\(pending.attempt)", "status": "\(record.status.rawValue)", "run": "\(record.runID)",
        ]
        if record.status.isFailure {
            metadata["error"] = "\(record.error ?? "")"
            logger.warning("run \(record.status.rawValue)", metadata: metadata)
        } else {
            metadata["changes"] = "+\(record.created) ~\(record.updated) -\(record.deleted) messages=\(record.messagesQueued)"
            logger.notice("run \(record.status.rawValue)", metadata: metadata)
        }
        emit(.finished(job: name, logicalTime: pending.slot, trigger: pending.trigger, attempt: pending.attempt, status: record.status))
        if record.dryRun {
            // A dry run changes nothing: not the job's last result, not a failure in a row,
            // never retried (docs/operations/monitoring.md#run-now).
            jobs[name] = j
            finishTicket(pending.ticket, record)
            nudge()
            return
        }
        metrics?.runFinished(record)
        if let changes = pending.changes { triggeredRunFinished(name, record: record, changes: changes) }
        lastRecords[name] = record
        if record.status.isFailure {
            consecutiveFailures[name, default: 0] += 1
        } else {
            consecutiveFailures[name] = 0
            lastSuccess[name] = record.end
        }
        if record.status.isFailure, pauses[name] == nil, let limit = j.config.policy.pauseAfterFailures, consecutiveFailures[name, default: 0] >= limit {
            pauseAfterFailures(name, record: record, failures: consecutiveFailures[name, default: 0])
        }
        if outbox != nil {
            // The run may have committed messages (its own, or the runner's job.succeeded /
            // job.failed events): a pass now (cheap when the outbox is empty).
            let now = clock.now()
            outboxDue = min(outboxDue ?? now, now)
        }
        if record.status.isFailure, !stopping, j.enabled, pauses[name] == nil, pending.attempt <= j.config.policy.retries {
            let policy = j.config.policy
            let delay = RetryBackoff.delay(retry: pending.attempt, min: policy.backoffMin, max: policy.backoffMax, using: &random)
            let at = clock.now() + delay
            var retry = pending
            (retry.trigger, retry.attempt) = (.retry, pending.attempt + 1)
            j.active = Active(run: retry, phase: .waiting(until: at), id: nextActiveID)
            nextActiveID += 1
            logger.notice("retrying in \(DurationFormat.format(delay))", metadata: ["job": "\(name)", "logicalTime": "\(Timestamp.format(pending.slot))", "attempt": "\(pending.attempt + 1)"])
            emit(.retryScheduled(job: name, logicalTime: pending.slot, attempt: pending.attempt + 1, at: at))
        } else {
            finishTicket(pending.ticket, record)
        }
        jobs[name] = j
        nudge()
    }

    /// The earliest next slot or delayed start.
    func nextWakeUp() -> Date? {
        var wake: Date?
        for j in jobs.values {
            if j.enabled, let next = j.nextSlot { wake = min(wake ?? next, next) }
            if case .waiting(let until)? = j.active?.phase { wake = min(wake ?? until, until) }
        }
        if let due = nextTriggeredRun() { wake = min(wake ?? due, due) }
        if outboxTask == nil, let due = outboxDue { wake = min(wake ?? due, due) }
        return wake
    }

    func statusLine() -> String? {
        let next = jobs.compactMap { name, j in j.enabled ? j.nextSlot.map { (name, $0) } : nil }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        let running = jobs.filter { $0.value.isRunning }.keys.sorted()
        var parts: [String] = []
        if !running.isEmpty { parts.append("running: \(running.joined(separator: ", "))") }
        if let next { parts.append("next: \(next.0) at \(Timestamp.format(next.1))") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    // MARK: - Stopping

    func drain() async {
        pauseWatcherTask?.cancel()
        pauseWatcherTask = nil
        await stopChangeFeed()
        for name in jobs.keys.sorted() { dropWaitingRuns(name, why: "stopping") }
        let deadline = clock.now() + config.shutdownGrace
        let running = runningJobs()
        if !running.isEmpty || outboxTask != nil {
            logger.notice("stopping: waiting up to \(DurationFormat.format(config.shutdownGrace)) (shutdownGrace) for running jobs", metadata: ["jobs": "\(running.joined(separator: ", "))"])
            emit(.stopping(deadline: deadline, running: running))
            while !runningJobs().isEmpty || outboxTask != nil, !forceCancel, clock.now() < deadline {
                await sleep(until: deadline)
            }
            if let outboxTask {
                outboxTask.cancel()
                await outboxTask.value
            }
            let left = runningJobs()
            if !left.isEmpty {
                logger.warning("cancelling running jobs; they commit nothing", metadata: ["jobs": "\(left.joined(separator: ", "))"])
                emit(.cancelling(jobs: left))
                let tasks = jobs.values.compactMap { j -> Task<Void, Never>? in
                    if case .running(let t)? = j.active?.phase { return t }
                    return nil
                }
                for t in tasks { t.cancel() }
                for t in tasks { await t.value }
            }
        } else {
            emit(.stopping(deadline: deadline, running: []))
        }
        logger.notice("scheduler stopped")
        emit(.stopped)
        eventSink.finish()
    }

    func runningJobs() -> [String] {
        jobs.filter { $0.value.isRunning }.keys.sorted()
    }

    // MARK: - Helpers

    /// Sleeps until `wake` (nil: until woken), or until ``nudge()``.
    func sleep(until wake: Date?) async {
        if pendingNudge {
            pendingNudge = false
            return
        }
        let clock = self.clock
        let deadline = wake ?? clock.now().addingTimeInterval(SystemSchedulerClock.maximumWait)
        let task = Task { _ = try? await clock.sleep(until: deadline) }
        sleeper = task
        await task.value
        sleeper = nil
        pendingNudge = false
    }

    /// Wakes the loop so it re-examines the jobs.
    func nudge() {
        if let sleeper {
            sleeper.cancel()
        } else {
            pendingNudge = true
        }
    }

    func persist(_ name: String) {
        guard let j = jobs[name] else { return }
        let entry = SchedulerStateStore.Entry(job: name, schedule: j.config.schedule, timeZone: j.config.timeZone.identifier, lastSlot: j.lastSlot, updatedAt: clock.now())
        do { try data.saveSchedulerState(entry) } catch {
            logger.error("cannot save the scheduler state: \(error)", metadata: ["job": "\(name)"])
        }
    }

    func emit(_ event: SchedulerEvent) {
        eventSink.yield(event)
    }

    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}

extension RunRecord.Status {
    /// Failed, conflict, cancelled: the attempt committed nothing and may be retried.
    package var isFailure: Bool {
        switch self {
        case .failed, .conflict, .cancelled: true
        case .succeeded, .succeededWithWarnings, .skippedOverlap, .skippedCatchUp, .skippedPaused: false
        }
    }
}

extension Date {
    /// `date` moved by `duration` (the daemon's slots, delays and deadlines).
    static func + (date: Date, duration: Duration) -> Date {
        date.addingTimeInterval(DurationFormat.seconds(duration))
    }

    static func - (date: Date, duration: Duration) -> Date {
        date.addingTimeInterval(-DurationFormat.seconds(duration))
    }
}
