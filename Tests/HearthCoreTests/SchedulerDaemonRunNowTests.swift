import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// Runs asked for over HTTP (docs/operations/monitoring.md#run-now), driven by the manual
/// clock: they go through the daemon's queue, so they wait for a run in progress and never run
/// beside it; a paused job runs only with `force`; dry runs are never the last result.
@Suite("Scheduler daemon: run now")
struct SchedulerDaemonRunNowTests {
    static let at = SchedulerDaemonTests.at

    @Test func aRunNowWaitsForTheRunInProgressAndThenRunsWithItsOwnRunID() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let gate = Gate()
        let scripted = ScriptedJobRunner(clock: clock) { call in
            if call.trigger == .schedule { await gate.wait() }
            return .succeeded
        }
        let h = try DaemonHarness(clock: clock, runner: scripted) { SchedulerDaemonTests.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { $0 == .started(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .schedule, attempt: 1) }

        let id = try await h.daemon.requestRun(job: "probe", parameters: [:], dryRun: false, force: false)
        try await h.events.next { if case .queued(job: "probe", _, trigger: .runNow) = $0 { return true } else { return false } }
        let queued = await h.daemon.pendingRun(id)
        #expect(queued?.job == "probe" && queued?.running == false)
        #expect(scripted.calls.count == 1, "the run now must not start beside the scheduled run")

        await gate.open()
        let record = try #require(await h.daemon.waitForRun(id))
        #expect(record.runID == id)
        #expect(record.trigger == .runNow)
        #expect(scripted.calls.map(\.trigger) == [.schedule, .runNow])
        #expect(await h.daemon.pendingRun(id) == nil)
        #expect(await h.daemon.status().jobs.first?.lastRecord?.runID == id)
        try await h.stop()
    }

    @Test func aPausedJobRunsOnlyWhenForcedAndADryRunIsNeverTheLastResult() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(clock: clock, runner: scripted) { SchedulerDaemonTests.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))

        #expect(try await h.daemon.pause(job: "probe", note: "rates", by: "token ops"))
        #expect(try h.data.pauses()["probe"]?.pausedBy == "token ops")
        await #expect(throws: SchedulerDaemon.RunRequestError.self) {
            try await h.daemon.requestRun(job: "probe", parameters: [:], dryRun: false, force: false)
        }
        let forced = try await h.daemon.requestRun(job: "probe", parameters: [:], dryRun: false, force: true)
        let record = try #require(await h.daemon.waitForRun(forced))
        #expect(record.status == .succeeded && record.runID == forced)

        let dry = try await h.daemon.requestRun(job: "probe", parameters: [:], dryRun: true, force: true)
        let dryRecord = try #require(await h.daemon.waitForRun(dry))
        #expect(dryRecord.dryRun)
        #expect(await h.daemon.status().jobs.first?.lastRecord?.runID == forced)

        #expect(try await h.daemon.resume(job: "probe"))
        #expect(try await !h.daemon.resume(job: "probe"))
        #expect(try h.data.pauses().isEmpty)
        await #expect(throws: SchedulerDaemon.RunRequestError.self) {
            try await h.daemon.requestRun(job: "nope", parameters: [:], dryRun: false, force: false)
        }
        try await h.stop()
    }
}
