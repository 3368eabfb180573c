import Foundation
import HearthStore
@testable import HearthHost
import Testing

/// Runs asked for over HTTP and their waiters (``RunTickets``), without a daemon.
@Suite("Run tickets")
struct RunTicketsTests {
    static func record(_ runID: String) -> RunRecord {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return RunRecord(runID: runID, job: "probe", trigger: .runNow, logicalTime: now, start: now, end: now, attempt: 1, status: .succeeded, dryRun: false)
    }

    @Test func anOpenTicketIsQueuedThenRunningThenEndsWithItsRecord() {
        var tickets = RunTickets()
        tickets.open("t1", job: "probe")
        #expect(tickets.pending("t1")?.running == false)
        tickets.started("t1")
        #expect(tickets.pending("t1")?.running == true)
        tickets.end("t1", Self.record("t1"))
        #expect(tickets.pending("t1") == nil)
        #expect(tickets.result("t1")??.runID == "t1")
    }

    @Test func waitersResumeWithTheRecordOrNilWhenTheRunWasDropped() async {
        var tickets = RunTickets()
        tickets.open("kept", job: "probe")
        tickets.open("dropped", job: "probe")
        let kept = await withCheckedContinuation { waiter in
            tickets.wait(for: "kept", waiter)
            tickets.end("kept", Self.record("kept"))
        }
        let dropped = await withCheckedContinuation { waiter in
            tickets.wait(for: "dropped", waiter)
            tickets.end("dropped", nil)
        }
        #expect(kept?.runID == "kept")
        #expect(dropped == nil)
        #expect(tickets.result("dropped") != nil)
    }

    @Test func onlyTheLatestHundredEndedRunsAreRemembered() {
        var tickets = RunTickets()
        for i in 0...RunTickets.endedKept {
            tickets.open("t\(i)", job: "probe")
            tickets.end("t\(i)", Self.record("t\(i)"))
        }
        #expect(tickets.result("t0") == nil)
        #expect(tickets.result("t1") != nil)
    }

    @Test func endingAnUnknownTicketDoesNothing() {
        var tickets = RunTickets()
        tickets.end("nobody", Self.record("nobody"))
        #expect(tickets.result("nobody") == nil)
    }
}
