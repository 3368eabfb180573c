import HearthKit
import HearthDataDirectory
import HearthStore
import HearthOutbound
import HearthHost
import Testing
import HearthTestSupport

/// Pause, resume and `pauseAfterFailures` in the daemon, driven by the manual clock: a pause
/// written to the backend is read on the daemon's clock (every second), so the tests move the
/// clock instead of waiting.
@Suite("Scheduler daemon: pause and resume")
struct SchedulerDaemonPauseTests {
    static let at = SchedulerDaemonTests.at

    @Test func aPausedJobsSlotsAreRecordedAsSkippedPausedAndResumingRunsTheNextSlot() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(clock: clock, runner: scripted) { SchedulerDaemonTests.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))

        // `hearth pause` from another process: picked up at the next read, a second later.
        try h.data.setPause(JobPause(job: "probe", note: "maintenance", pausedAt: clock.now(), pausedBy: "cli"))
        clock.advance(by: 1)
        try await h.events.next { $0 == .paused(job: "probe") }

        clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { $0 == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), status: .skippedPaused) }
        clock.advance(to: Self.at("2026-11-18T12:15:00Z"))
        try await h.events.next { $0 == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:15:00Z"), status: .skippedPaused) }
        #expect(scripted.calls.isEmpty)
        let status = await h.daemon.status()
        #expect(status.jobs.first { $0.name == "probe" }?.pause?.note == "maintenance")

        try h.data.clearPause(job: "probe")
        clock.advance(by: 1)
        try await h.events.next { $0 == .resumed(job: "probe") }
        clock.advance(to: Self.at("2026-11-18T12:30:00Z"))
        let finished = try await h.events.next { SchedulerDaemonTests.isFinished($0) }
        #expect(finished == .finished(job: "probe", logicalTime: Self.at("2026-11-18T12:30:00Z"), trigger: .schedule, attempt: 1, status: .succeeded))
        #expect(scripted.calls.map(\.logicalTime) == [Self.at("2026-11-18T12:30:00Z")])

        let records = try h.records()
        #expect(records.map(\.status) == [.skippedPaused, .skippedPaused])
        #expect(records.map(\.trigger) == [.schedule, .schedule])
        try await h.stop()
    }

    @Test func aJobPausedBeforeTheDaemonStartsRunsNothing() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(
            clock: clock, runner: scripted,
            prepare: { data in try data.setPause(JobPause(job: "probe", pausedAt: Self.at("2026-11-18T11:00:00Z"), pausedBy: "cli")) }
        ) { SchedulerDaemonTests.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { $0 == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), status: .skippedPaused) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:15:00Z"))
        #expect(scripted.calls.isEmpty)
        try await h.stop()
    }

    @Test func pauseAfterFailuresPausesTheJobAndQueuesAJobPausedEvent() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock) { _ in .failed }
        let h = try DaemonHarness(clock: clock, runner: scripted, outbox: RecordingOutbox()) { dir in
            var c = SchedulerDaemonTests.config(dir) { $0.pauseAfterFailures = 2 }
            c.webhooks = [WebhookConfig(name: "ops", url: "https://example.com/hook", secretEnv: "HEARTH_TEST_UNSET_SECRET", events: ["job.paused"])]
            return c
        }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { SchedulerDaemonTests.isFinished($0, at: Self.at("2026-11-18T12:00:00Z")) }
        #expect(try h.data.pauses().isEmpty)
        clock.advance(to: Self.at("2026-11-18T12:15:00Z"))
        try await h.events.next { SchedulerDaemonTests.isFinished($0, at: Self.at("2026-11-18T12:15:00Z")) }
        try await h.events.next { $0 == .paused(job: "probe") }

        let pause = try #require(try h.data.pauses()["probe"])
        #expect(pause.pausedBy == "pauseAfterFailures")
        #expect(pause.note?.contains("2 failed runs in a row") == true)

        // The event is written off the daemon's actor, and its file tells nobody: looked for
        // until it is there.
        let event = try await eventually("the job.paused event in the outbox", timeout: .seconds(10)) {
            try DirectoryOutboxFolders.messages(in: .pending, data: h.data).first { $0.id.hasPrefix("job.paused-probe-") }
        }
        #expect(event.recipient == "job.paused")
        #expect(event.payload["job"]?.stringValue == "probe")
        #expect(event.payload["consecutiveFailures"]?.intValue == 2)
        #expect(event.payload["pausedBy"]?.stringValue == "pauseAfterFailures")

        clock.advance(to: Self.at("2026-11-18T12:30:00Z"))
        try await h.events.next { $0 == .skipped(job: "probe", logicalTime: Self.at("2026-11-18T12:30:00Z"), status: .skippedPaused) }
        #expect(scripted.calls.count == 2)
        try await h.stop()
    }
}
