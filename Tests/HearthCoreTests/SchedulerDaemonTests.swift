import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthHost
import Testing
import HearthTestSupport

/// The scheduler daemon driven by a manual clock: nothing here waits for the wall clock to
/// reach a slot (only the timeout test waits for its 200 ms timeout).
@Suite("Scheduler daemon")
struct SchedulerDaemonTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func at(_ text: String) -> Date {
        Timestamp.parseISO8601(text)!
    }

    /// A configuration with the probe job only.
    static func config(
        _ dir: String, schedule: String = "*/15 * * * *", scenario: String? = nil, pingURL: String? = nil,
        policy: (inout JobPolicy) -> Void = { _ in }
    ) -> HearthConfig {
        var c = HearthConfig(dataDir: dir)
        c.lockTimeout = .seconds(2)
        var p = JobPolicy()
        p.retries = 0
        policy(&p)
        c.jobs["probe"] = JobConfig(
            name: "probe", schedule: schedule, timeZone: utc, policy: p, params: scenario.map { ["scenario": .string($0)] } ?? [:],
            pingURL: pingURL)
        return c
    }

    static func isFinished(_ e: SchedulerEvent, at slot: Date? = nil) -> Bool {
        if case .finished(_, let t, _, _, _) = e { return slot == nil || t == slot }
        return false
    }

    static func isStarted(_ e: SchedulerEvent, at slot: Date? = nil) -> Bool {
        if case .started(_, let t, _, _) = e { return slot == nil || t == slot }
        return false
    }

    static func markIDs(_ dir: TempDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/marks")) ?? []).sorted()
    }

    // MARK: - Slots

    @Test func slotsFireAtTheirTimesWithTheSlotAsLogicalTime() async throws {
        let h = try DaemonHarness(clock: ManualSchedulerClock(Self.at("2026-11-18T11:52:30Z"))) { Self.config($0) }
        try await h.events.next { $0 == .ready(jobs: ["probe"]) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))

        // Wake-ups come a little late, as real ones do: the slot stays the logical time and the
        // next slot is computed from it, not from the clock.
        h.clock.advance(to: Self.at("2026-11-18T12:00:00.250Z"))
        try await h.events.next { Self.isFinished($0, at: Self.at("2026-11-18T12:00:00Z")) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        h.clock.advance(to: Self.at("2026-11-18T12:15:00Z"))
        try await h.events.next { Self.isFinished($0, at: Self.at("2026-11-18T12:15:00Z")) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:30:00Z"))
        h.clock.advance(to: Self.at("2026-11-18T12:30:07Z"))
        try await h.events.next { Self.isFinished($0, at: Self.at("2026-11-18T12:30:00Z")) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:45:00Z"))

        let records = try h.records()
        #expect(records.map(\.logicalTime) == ["12:00", "12:15", "12:30"].map { Self.at("2026-11-18T\($0):00Z") })
        #expect(records.map(\.trigger) == [.schedule, .schedule, .schedule])
        #expect(records.map(\.status) == [.succeeded, .succeeded, .succeeded])
        #expect(records.map(\.start) == [Self.at("2026-11-18T12:00:00.250Z"), Self.at("2026-11-18T12:15:00Z"), Self.at("2026-11-18T12:30:07Z")])
        #expect(Self.markIDs(h.dir) == ["2026-11-18T12-00-00.000Z.json", "2026-11-18T12-15-00.000Z.json", "2026-11-18T12-30-00.000Z.json"])
        #expect(DirectorySchedulerState(data: h.data).load(job: "probe")?.lastSlot == Self.at("2026-11-18T12:30:00Z"))
        try await h.stop()
    }

    @Test func theFirstStartCatchesNothingUpAndRemembersWhenItStarted() async throws {
        let start = Self.at("2026-11-18T11:52:30Z")
        let clock = ManualSchedulerClock(start)
        let h = try DaemonHarness(clock: clock, runner: ScriptedJobRunner(clock: clock)) { Self.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        #expect(try h.records().isEmpty)
        #expect(DirectorySchedulerState(data: h.data).load(job: "probe")?.lastSlot == start)
        try await h.stop()
    }

    @Test func aSlotJustMissedByARestartStillRunsAsScheduled() async throws {
        // Stopped at 11:59:58, back at 12:00:20: the 12:00 slot is 20 s late, within the 60 s
        // tolerance, so it is a normal scheduled run, not a catch-up.
        let clock = ManualSchedulerClock(Self.at("2026-11-18T12:00:20Z"))
        let h = try DaemonHarness(
            clock: clock, runner: ScriptedJobRunner(clock: clock),
            prepare: { data in
                try DirectorySchedulerState(data: data).save(.init(job: "probe", schedule: "*/15 * * * *", timeZone: "GMT", lastSlot: Self.at("2026-11-18T11:45:00Z"), updatedAt: Self.at("2026-11-18T11:45:00Z")))
            }
        ) { Self.config($0) }
        let finished = try await h.events.next { Self.isFinished($0) }
        #expect(finished == .finished(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .schedule, attempt: 1, status: .succeeded))
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        try await h.stop()
    }

    @Test func slotsMissedWhileDownCountAsMissedEvenWhenRecentAndOnlyTheLatestRunsOnTime() async throws {
        // Every 10 s; stopped after 12:00:00, back at 12:00:35: 12:00:10 and 12:00:20 were
        // missed (catchUp = latest, and the 12:00:30 slot is on time, so both are recorded as
        // skipped), 12:00:30 runs as scheduled.
        let clock = ManualSchedulerClock(Self.at("2026-11-18T12:00:35Z"))
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(
            clock: clock, runner: scripted,
            prepare: { data in
                try DirectorySchedulerState(data: data).save(.init(job: "probe", schedule: "every 10 seconds", timeZone: "GMT", lastSlot: Self.at("2026-11-18T12:00:00Z"), updatedAt: Self.at("2026-11-18T12:00:00Z")))
            }
        ) { dir in
            var c = Self.config(dir, schedule: "every 10 seconds")
            c.allowSecondIntervals = true
            return c
        }
        try await h.events.next { Self.isFinished($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:40Z"))
        #expect(scripted.calls == [.init(job: "probe", logicalTime: Self.at("2026-11-18T12:00:30Z"), trigger: .schedule, attempt: 1)])
        let records = try h.records()
        #expect(records.map(\.logicalTime) == [Self.at("2026-11-18T12:00:10Z"), Self.at("2026-11-18T12:00:20Z")])
        #expect(Set(records.map(\.status)) == [.skippedCatchUp])
        try await h.stop()
    }

    // MARK: - Overlap

    @Test func aSlotThatComesWhileTheJobRunsIsSkippedAndRecordedWithOverlapSkip() async throws {
        let gate = Gate()
        let first = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { call in
            if call.logicalTime == first { await gate.wait() }
            return .succeeded
        }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) }
        try await h.events.sleeping(until: first)
        h.clock.advance(to: first)
        try await h.events.next { Self.isStarted($0, at: first) }
        h.clock.advance(to: Self.at("2026-11-18T12:15:00Z"))
        let skipped = try await h.events.next { if case .skipped = $0 { true } else { false } }
        #expect(skipped == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:15:00Z"), status: .skippedOverlap))
        await gate.open()
        try await h.events.next { Self.isFinished($0, at: first) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:30:00Z"))
        h.clock.advance(to: Self.at("2026-11-18T12:30:00Z"))
        try await h.events.next { Self.isFinished($0, at: Self.at("2026-11-18T12:30:00Z")) }

        #expect(scripted.calls.map(\.logicalTime) == [first, Self.at("2026-11-18T12:30:00Z")])
        let records = try h.records()
        #expect(records.count == 1)
        #expect(records.first?.status == .skippedOverlap)
        #expect(records.first?.trigger == .schedule)
        #expect(records.first?.logicalTime == Self.at("2026-11-18T12:15:00Z"))
        try await h.stop()
    }

    @Test func withOverlapQueueOneSlotWaitsForTheRunningOneAndFurtherSlotsAreSkipped() async throws {
        let gate = Gate()
        let first = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { call in
            if call.logicalTime == first { await gate.wait() }
            return .succeeded
        }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) { $0.overlap = .queue } }
        try await h.events.sleeping(until: first)
        h.clock.advance(to: first)
        try await h.events.next { Self.isStarted($0, at: first) }
        h.clock.advance(to: Self.at("2026-11-18T12:15:00Z"))
        try await h.events.next { $0 == .queued(job: "probe", logicalTime: Self.at("2026-11-18T12:15:00Z"), trigger: .schedule) }
        h.clock.advance(to: Self.at("2026-11-18T12:30:00Z"))
        try await h.events.next { $0 == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:30:00Z"), status: .skippedOverlap) }
        await gate.open()
        try await h.events.next { Self.isFinished($0, at: first) }
        // The queued slot runs right after, with its own logical time.
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: Self.at("2026-11-18T12:15:00Z"), trigger: .schedule, attempt: 1, status: .succeeded) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:45:00Z"))

        #expect(scripted.calls.map(\.logicalTime) == [first, Self.at("2026-11-18T12:15:00Z")])
        #expect(try h.records().map(\.status) == [.skippedOverlap])
        try await h.stop()
    }

    // MARK: - Retries

    @Test func aFailedRunIsRetriedWithTheSameLogicalTimeAfterBackoffsWithinTheirBounds() async throws {
        let slot = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { call in call.attempt < 3 ? .failed : .succeeded }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) { p in p.retries = 3; p.backoffMin = .seconds(10); p.backoffMax = .seconds(25) } }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        // Retry 1 waits in [10 s, 20 s]; retry 2 in [10 s, min(25 s, 40 s)].
        for (attempt, upper) in [(2, 20.0), (3, 25.0)] {
            let event = try await h.events.next { if case .retryScheduled = $0 { true } else { false } }
            guard case .retryScheduled(_, let logical, let n, let retryAt) = event else { return }
            #expect(logical == slot)
            #expect(n == attempt)
            let delay = retryAt.timeIntervalSince(h.clock.now())
            #expect(delay >= 10 && delay <= upper, "retry \(attempt - 1) waits \(delay) s")
            try await h.events.sleeping(until: retryAt)
            h.clock.advance(to: retryAt)
        }
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .retry, attempt: 3, status: .succeeded) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        let calls = scripted.calls
        #expect(calls.map(\.logicalTime) == [slot, slot, slot])
        #expect(calls.map(\.trigger) == [.schedule, .retry, .retry])
        #expect(calls.map(\.attempt) == [1, 2, 3])
        try await h.stop()
    }

    @Test func retriesStopAfterTheConfiguredNumber() async throws {
        let slot = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { _ in .failed }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) { p in p.retries = 1; p.backoffMin = .seconds(1); p.backoffMax = .seconds(1) } }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:01Z"))
        h.clock.advance(to: Self.at("2026-11-18T12:00:01Z"))
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .retry, attempt: 2, status: .failed) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        #expect(scripted.calls.count == 2)
        #expect(!h.events.all.contains { if case .retryScheduled(_, _, 3, _) = $0 { true } else { false } })
        try await h.stop()
    }

    @Test func backoffDelaysDoubleTheirCeilingUpToTheMaximumAndNeverGoBelowTheMinimum() throws {
        // 7 unless HEARTH_TEST_SEED says otherwise: the bounds hold for any seed.
        let seed = try TestSeed(fixed: 7)
        var rng = seed.generator()
        for retry in 1...8 {
            let bounds = RetryBackoff.bounds(retry: retry, min: .seconds(10), max: .seconds(300))
            #expect(bounds.lowerBound == .seconds(10))
            #expect(bounds.upperBound == min(.seconds(300), .seconds(10 * (1 << retry))))
            var highest = Duration.zero
            for _ in 0..<500 {
                let d = RetryBackoff.delay(retry: retry, min: .seconds(10), max: .seconds(300), using: &rng)
                #expect(bounds.contains(d), "\(seed)")
                highest = max(highest, d)
            }
            // Full jitter: the draws spread over the whole range.
            #expect(highest > bounds.lowerBound + (bounds.upperBound - bounds.lowerBound) * 0.9, "\(seed)")
        }
        #expect(RetryBackoff.jitter(.zero, using: &rng) == .zero)
    }

    // MARK: - Timeout

    @Test func aRunPastItsTimeoutIsCancelledAndCommitsNothing() async throws {
        let scenario = ProbeJob.scenario { ctx in
            try ProbeJob.mark(ctx)
            try await untilCancelled()
        }
        let slot = Self.at("2026-11-18T12:00:00Z")
        let h = try DaemonHarness(clock: ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))) { Self.config($0, scenario: scenario) { $0.timeout = .milliseconds(200) } }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        let finished = try await h.events.next { Self.isFinished($0) }
        #expect(finished == .finished(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1, status: .cancelled))
        let record = try #require(try h.records().first)
        #expect(record.status == .cancelled)
        #expect(record.error?.contains("timeout of 200ms") == true)
        #expect(Self.markIDs(h.dir).isEmpty)
        #expect((try FileIO.list(h.dir.path + "/.hearth/journal") ?? []).isEmpty)
        try await h.stop()
    }

    // MARK: - Missed slots

    /// Hourly job, last slot 2026-11-15 12:00, back 3 days later at 2026-11-18 12:20 with the
    /// default 24 h window: the slots from 2026-11-17 13:00 to 2026-11-18 12:00 (24) count.
    static let downtimeLastSlot = at("2026-11-15T12:00:00Z")
    static let downtimeRestart = at("2026-11-18T12:20:00Z")
    static let missedInWindow = (0..<24).map { at("2026-11-17T13:00:00Z").addingTimeInterval(Double($0) * 3600) }

    func afterThreeDaysDown(_ catchUp: JobPolicy.CatchUp) throws -> (DaemonHarness, ScriptedJobRunner) {
        let clock = ManualSchedulerClock(Self.downtimeRestart)
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(
            clock: clock, runner: scripted,
            prepare: { data in
                try DirectorySchedulerState(data: data).save(.init(job: "probe", schedule: "0 * * * *", timeZone: "GMT", lastSlot: Self.downtimeLastSlot, updatedAt: Self.downtimeLastSlot))
            }
        ) { Self.config($0, schedule: "0 * * * *") { $0.catchUp = catchUp } }
        return (h, scripted)
    }

    @Test func afterAThreeDayDowntimeCatchUpNoneRecordsEachMissedSlotAsSkipped() async throws {
        let (h, scripted) = try afterThreeDaysDown(.none)
        try await h.events.sleeping(until: Self.at("2026-11-18T13:00:00Z"))
        let records = try h.records()
        #expect(records.map(\.logicalTime) == Self.missedInWindow)
        #expect(Set(records.map(\.status)) == [.skippedCatchUp])
        #expect(Set(records.map(\.trigger)) == [.catchUp])
        #expect(scripted.calls.isEmpty)
        #expect(DirectorySchedulerState(data: h.data).load(job: "probe")?.lastSlot == Self.at("2026-11-18T12:00:00Z"))
        try await h.stop()
    }

    @Test func afterAThreeDayDowntimeCatchUpLatestRunsTheMostRecentSlotOnce() async throws {
        let (h, scripted) = try afterThreeDaysDown(.latest)
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .catchUp, attempt: 1, status: .succeeded) }
        try await h.events.sleeping(until: Self.at("2026-11-18T13:00:00Z"))
        let calls = scripted.calls
        #expect(calls == [.init(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .catchUp, attempt: 1)])
        let records = try h.records()
        #expect(records.map(\.logicalTime) == Array(Self.missedInWindow.dropLast()))
        #expect(Set(records.map(\.status)) == [.skippedCatchUp])
        try await h.stop()
    }

    @Test func afterAThreeDayDowntimeCatchUpAllRunsEachMissedSlotInOrder() async throws {
        let (h, scripted) = try afterThreeDaysDown(.all)
        for slot in Self.missedInWindow {
            try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .catchUp, attempt: 1, status: .succeeded) }
        }
        try await h.events.sleeping(until: Self.at("2026-11-18T13:00:00Z"))
        let calls = scripted.calls
        #expect(calls.map(\.logicalTime) == Self.missedInWindow)
        #expect(Set(calls.map(\.trigger)) == [.catchUp])
        #expect(try h.records().isEmpty)
        try await h.stop()
    }

    // MARK: - Jitter

    @Test func jitterDelaysTheStartButNotTheLogicalTime() async throws {
        let slot = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let h = try DaemonHarness(clock: clock, runner: ScriptedJobRunner(clock: clock)) { Self.config($0) { $0.jitter = .seconds(30) } }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        let delayed = try await h.events.next { if case .delayed = $0 { true } else { false } }
        guard case .delayed(_, let logical, let until) = delayed else { return }
        #expect(logical == slot)
        #expect(until >= slot && until <= slot.addingTimeInterval(30))
        #expect(!h.events.all.contains { Self.isStarted($0) })
        try await h.events.sleeping(until: until)
        h.clock.advance(to: until)
        try await h.events.next { $0 == .started(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1) }
        try await h.stop()
    }

    // MARK: - Reload

    @Test func reloadKeepsTheOldConfigurationWhenTheNewOneIsInvalidAndAppliesAValidOne() async throws {
        let next = Locked<HearthConfig?>(nil)
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:52:30Z"))
        let h = try DaemonHarness(clock: clock, runner: ScriptedJobRunner(clock: clock), reloadSource: { next.value! }) { Self.config($0) }
        let dir = h.dir.path
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))

        next.value = Self.config(dir, schedule: "61 * * * *")
        await h.daemon.reload()
        let failed = try await h.events.next { if case .reloadFailed = $0 { true } else { false } }
        guard case .reloadFailed(let reason) = failed else { return }
        #expect(reason.contains("[jobs.probe] schedule"))
        #expect(reason.contains("61"))
        #expect(await h.daemon.config.jobs["probe"]?.schedule == "*/15 * * * *")

        next.value = Self.config(dir, schedule: "*/5 * * * *")
        await h.daemon.reload()
        try await h.events.next { $0 == .reloaded }
        try await h.events.sleeping(until: Self.at("2026-11-18T11:55:00Z"))

        var disabled = Self.config(dir)
        disabled.jobs["probe"]?.enabled = false
        next.value = disabled
        await h.daemon.reload()
        try await h.events.next { $0 == .reloaded }
        try await h.events.sleeping(until: nil)
        try await h.stop()
    }

    // MARK: - CLI runs

    @Test func aJobRunningFromTheCLIKeepsTheDaemonFromRunningItAndTheAttemptIsRecorded() async throws {
        let slot = Self.at("2026-11-18T12:00:00Z")
        let h = try DaemonHarness(clock: ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))) { dir in
            var c = Self.config(dir)
            c.lockTimeout = .milliseconds(100)
            return c
        }
        // What `hearth run probe` holds for its whole duration.
        let held = try CommitLock.acquire(path: h.data.stateDirectory + "/jobs/probe.lock", root: h.data.root, holder: "pid=4242 job=probe", timeout: .seconds(1), what: "job probe")
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1, status: .failed) }
        held.release()
        let record = try #require(try h.records().first)
        #expect(record.status == .failed)
        #expect(record.error?.contains("pid=4242 job=probe") == true)
        #expect(Self.markIDs(h.dir).isEmpty)
        try await h.stop()
    }

    // MARK: - Outbox

    @Test func theOutboxIsDeliveredAtStartAfterRunsThatQueueMessagesAndWhenARetryIsDue() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let outbox = RecordingOutbox(answers: [nil, Self.at("2026-11-18T12:05:00Z"), nil])
        let h = try DaemonHarness(clock: clock, runner: ScriptedJobRunner(clock: clock, messagesQueued: 2), outbox: outbox) { Self.config($0) }
        // Leftovers from before the start.
        try await h.events.next { $0 == .outboxPassed(nextDue: nil) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        // A pass right after the run (it queued messages); one must be retried at 12:05,
        // so the daemon wakes then rather than at the next slot.
        h.clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { $0 == .outboxPassed(nextDue: Self.at("2026-11-18T12:05:00Z")) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:05:00Z"))
        h.clock.advance(to: Self.at("2026-11-18T12:05:00Z"))
        try await h.events.next { $0 == .outboxPassed(nextDue: nil) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        #expect(outbox.passTimes == ["11:59", "12:00", "12:05"].map { Self.at("2026-11-18T\($0):00Z") })
        try await h.stop()
    }

    // MARK: - Run monitoring

    @Test func runMonitoringPingsStartThenSuccessOrFailOverRealHTTP() async throws {
        let server = try await LocalServer.start(script: "ping_recorder.py", arguments: [], scheme: "http")
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let slot = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { call in call.attempt == 1 ? .failed : .succeeded }
        let h = try DaemonHarness(clock: clock, runner: scripted, pinger: RunPinger(transport: client, timeout: .seconds(5), logger: DaemonHarness.quiet)) {
            Self.config($0, pingURL: server.baseURL + "/ping/3f9a/") { p in p.retries = 1; p.backoffMin = .seconds(1); p.backoffMax = .seconds(1) }
        }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.sleeping(until: slot.addingTimeInterval(1))
        h.clock.advance(to: slot.addingTimeInterval(1))
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .retry, attempt: 2, status: .succeeded) }
        let seen = try await client.send(HTTPRequest(url: server.baseURL + "/_seen"))
        let paths = try JSONSerialization.jsonObject(with: Data(seen.body)) as? [String]
        #expect(paths == ["GET /ping/3f9a/start", "GET /ping/3f9a/fail", "GET /ping/3f9a/start", "GET /ping/3f9a"])
        try await h.stop()
    }

    @Test func aPingThatCannotBeDeliveredNeverChangesTheRun() async throws {
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let slot = Self.at("2026-11-18T12:00:00Z")
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let port = try LocalServers.unusedPort()
        let h = try DaemonHarness(clock: clock, runner: ScriptedJobRunner(clock: clock), pinger: RunPinger(transport: client, timeout: .seconds(2), logger: DaemonHarness.quiet)) {
            Self.config($0, pingURL: "http://127.0.0.1:\(port)/ping")
        }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1, status: .succeeded) }
        #expect(!h.events.all.contains { if case .retryScheduled = $0 { true } else { false } })
        try await h.stop()
    }

    // MARK: - Stopping

    @Test func gracefulShutdownLetsARunningJobFinishWithinTheGrace() async throws {
        let gate = Gate()
        let scenario = ProbeJob.scenario { ctx in
            await gate.wait()
            try ProbeJob.mark(ctx)
        }
        let slot = Self.at("2026-11-18T12:00:00Z")
        let h = try DaemonHarness(clock: ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))) { Self.config($0, scenario: scenario) }
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.next { Self.isStarted($0, at: slot) }
        await h.triggerGracefulShutdown()
        try await h.events.next { $0 == .stopping(deadline: slot.addingTimeInterval(30), running: ["probe"]) }
        await gate.open()
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1, status: .succeeded) }
        try await h.events.next { $0 == .stopped }
        try await h.runTask.value
        #expect(Self.markIDs(h.dir) == ["2026-11-18T12-00-00.000Z.json"])
        #expect(!h.events.all.contains { if case .cancelling = $0 { true } else { false } })
        h.dir.remove()
    }

    @Test func gracefulShutdownDuringARunCancelsItAfterTheGraceAndLeavesNoPartialCommit() async throws {
        let scenario = ProbeJob.scenario { ctx in
            try ProbeJob.mark(ctx)
            try await untilCancelled()
        }
        let listener = try NotifySocketListener()
        defer { listener.close() }
        let slot = Self.at("2026-11-18T12:00:00Z")
        let h = try DaemonHarness(clock: ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z")), notifier: SystemdNotifier(socketPath: listener.path)) { dir in
            var c = Self.config(dir, scenario: scenario) { $0.retries = 2 }
            c.shutdownGrace = .seconds(5)
            return c
        }
        let before = TreeSnapshot(h.dir.path)
        try await h.events.sleeping(until: slot)
        h.clock.advance(to: slot)
        try await h.events.next { Self.isStarted($0, at: slot) }

        await h.triggerGracefulShutdown()
        try await h.events.next { $0 == .stopping(deadline: slot.addingTimeInterval(5), running: ["probe"]) }
        // Until the grace has passed the run goes on and the daemon waits: its grace timer is
        // still asleep after time moves to 0.1 s before the deadline.
        try await h.clock.sleeper(until: slot.addingTimeInterval(5))
        h.clock.advance(to: slot.addingTimeInterval(4.9))
        #expect(h.clock.sleepingUntil.contains(slot.addingTimeInterval(5)))
        #expect(!h.events.all.contains { $0 == .stopped })
        h.clock.advance(to: slot.addingTimeInterval(5))
        try await h.events.next { $0 == .cancelling(jobs: ["probe"]) }
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: slot, trigger: .schedule, attempt: 1, status: .cancelled) }
        try await h.events.next { $0 == .stopped }
        try await h.runTask.value  // returns normally: `hearth daemon` exits 0

        #expect(TreeSnapshot(h.dir.path) == before)
        #expect(Self.markIDs(h.dir).isEmpty)
        #expect((try FileIO.list(h.dir.path + "/.hearth/journal") ?? []).isEmpty)
        let records = try h.records()
        #expect(records.map(\.status) == [.cancelled])  // and no retry while stopping
        #expect(try await listener.wait("STOPPING=1") { $0 == "STOPPING=1" }.filter { !$0.hasPrefix("STATUS=") } == ["READY=1\nSTATUS=scheduling 1 job(s)", "STOPPING=1"])
        h.dir.remove()
    }
}
