import Foundation
import HearthKit
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// Calls in the daemon (docs/callables.md#a-call-is-a-run), driven by the manual clock: a call
/// runs at once, beside the job's scheduled run and beside other calls, never skipped as an
/// overlap; a paused job and a stopping daemon answer `UNAVAILABLE`; stopping waits for calls.
@Suite("Scheduler daemon: calls")
struct SchedulerDaemonCallTests {
    static let at = SchedulerDaemonTests.at

    static func config(_ dir: String, auth: CallAuth = .optional) -> HearthConfig {
        var c = SchedulerDaemonTests.config(dir)
        c.jobs["probe"]?.callable = true
        c.jobs["probe"]?.callAuth = auth
        return c
    }

    @Test func aCallRunsAtOnceBesideTheJobsScheduledRunAndBesideAnotherCall() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let slotGate = Gate()
        let callGate = Gate()
        let scripted = ScriptedJobRunner(clock: clock) { call in
            if call.trigger == .schedule { await slotGate.wait() }
            if call.trigger == .call { await callGate.wait() }
            return .succeeded
        }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        clock.advance(to: Self.at("2026-11-18T12:00:00Z"))
        try await h.events.next { $0 == .started(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .schedule, attempt: 1) }

        async let first = h.daemon.call(job: "probe", Call(data: .int(1), uid: "u1"))
        async let second = h.daemon.call(job: "probe", Call(data: .int(2), uid: nil))
        try await h.events.next { $0 == .started(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .call, attempt: 1) }
        try await h.events.next { $0 == .started(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .call, attempt: 1) }
        #expect(scripted.calls.map(\.trigger).sorted { $0.rawValue < $1.rawValue } == [.call, .call, .schedule], "both calls run while the slot's run is running")
        await callGate.open()
        #expect(await [first, second] == [.result(.null), .result(.null)])
        await slotGate.open()
        try await h.events.next { $0 == .finished(job: "probe", logicalTime: Self.at("2026-11-18T12:00:00Z"), trigger: .schedule, attempt: 1, status: .succeeded) }
        try await h.stop()
    }

    @Test func aCallToAPausedOrUnknownOrNotCallableJobIsAnsweredWithoutARun() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let scripted = ScriptedJobRunner(clock: clock)
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0, auth: .required) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        #expect(await h.daemon.call(job: "nope", Call(data: .null, uid: "u1")).code == "NOT_FOUND")
        #expect(await h.daemon.call(job: "probe", Call(data: .null, uid: nil)).code == "UNAUTHENTICATED")
        _ = try await h.daemon.pause(job: "probe", note: nil, by: "test")
        #expect(await h.daemon.call(job: "probe", Call(data: .null, uid: "u1")) == .error(CallError(.unavailable, "probe is paused by its operator; call again later")))
        #expect(scripted.calls.isEmpty)
        try await h.stop()
    }

    @Test func stoppingWaitsForACallInFlightAndThenAnswersUnavailable() async throws {
        let clock = ManualSchedulerClock(Self.at("2026-11-18T11:59:00Z"))
        let gate = Gate()
        let scripted = ScriptedJobRunner(clock: clock) { _ in
            await gate.wait()
            return .succeeded
        }
        let h = try DaemonHarness(clock: clock, runner: scripted) { Self.config($0) }
        try await h.events.sleeping(until: Self.at("2026-11-18T12:00:00Z"))
        let inFlight = Task { await h.daemon.call(job: "probe", Call(data: .null, uid: "u1")) }
        try await h.events.next { if case .started(job: "probe", _, trigger: .call, _) = $0 { return true } else { return false } }
        await h.triggerGracefulShutdown()
        try await h.events.next { if case .stopping(_, let running) = $0 { return running == ["probe"] } else { return false } }
        #expect(await h.daemon.call(job: "probe", Call(data: .null, uid: "u1")).code == "UNAVAILABLE")
        await gate.open()
        #expect(await inFlight.value == .result(.null))
        try await h.stop()
    }
}
