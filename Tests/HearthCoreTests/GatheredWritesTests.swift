import Foundation
import HearthKit
import HearthStore
@testable import HearthHost
import Testing

/// Which writes start which runs (docs/triggers.md#what-the-daemon-does-with-writes), without a
/// daemon: ``GatheredWrites`` fed change-feed events by hand.
@Suite("Gathered writes")
struct GatheredWritesTests {
    static let t0 = Timestamp.parseISO8601("2026-11-18T12:00:00Z")!

    static func path(_ text: String) -> DocumentPath { try! DocumentPath(parsing: text) }

    static func job(_ name: String, _ triggers: String..., delay: Duration = .seconds(2), paused: Bool = false) -> GatheredWrites.Job {
        GatheredWrites.Job(name: name, triggers: triggers, triggerDelay: delay, paused: paused)
    }

    static func gifts(_ ids: String..., writer: String? = nil, chain: Int = 0, sequence: Int64? = nil) -> ChangeFeedEvent {
        .changed(ChangeBatch(collection: "gifts", paths: ids.map { path("gifts/\($0)") }, writer: writer, chain: chain, sequence: sequence))
    }

    @Test func aBatchJoinsTheNextRunOfEveryJobThatItsCollectionTriggers() {
        var writes = GatheredWrites()
        let jobs = [Self.job("settle", "gifts"), Self.job("notify", "gifts", "users"), Self.job("report", "users")]
        let outcomes = writes.take(Self.gifts("a", "b"), jobs: jobs, now: Self.t0)
        #expect(outcomes == [.gathered(job: "settle", count: 2, chain: 0), .gathered(job: "notify", count: 2, chain: 0)])
        #expect(writes.byJob["settle"]?.paths == [Self.path("gifts/a"), Self.path("gifts/b")])
        #expect(writes.byJob["report"] == nil)
    }

    @Test func laterWritesJoinTheRunWhichStaysDueADelayAfterTheFirst() {
        var writes = GatheredWrites()
        let jobs = [Self.job("settle", "gifts", delay: .seconds(2))]
        _ = writes.take(Self.gifts("a"), jobs: jobs, now: Self.t0)
        _ = writes.take(Self.gifts("b", "a"), jobs: jobs, now: Self.t0.addingTimeInterval(1))
        let changes = writes.byJob["settle"]
        #expect(changes?.due == Self.t0.addingTimeInterval(2))
        #expect(changes?.paths == [Self.path("gifts/a"), Self.path("gifts/b")])
        #expect(changes?.firstSeen == Self.t0)
    }

    @Test func aJobsOwnCommitDoesNotStartIt() {
        var writes = GatheredWrites()
        let outcomes = writes.take(Self.gifts("a", writer: "settle", chain: 1), jobs: [Self.job("settle", "gifts")], now: Self.t0)
        #expect(outcomes == [.ignored(job: "settle", reason: .ownCommit)])
        #expect(writes.byJob.isEmpty)
    }

    @Test func aPausedJobGathersNoWritesAndNoLoss() {
        var writes = GatheredWrites()
        let jobs = [Self.job("settle", "gifts", paused: true)]
        #expect(writes.take(Self.gifts("a"), jobs: jobs, now: Self.t0) == [.ignored(job: "settle", reason: .paused)])
        #expect(writes.take(.lost(collections: ["gifts"], reason: "overflow"), jobs: jobs, now: Self.t0) == [.ignored(job: "settle", reason: .paused)])
        #expect(writes.byJob.isEmpty)
    }

    @Test func chainsStopAfterEightLinks() {
        var writes = GatheredWrites()
        let jobs = [Self.job("settle", "gifts")]
        #expect(writes.take(Self.gifts("a", writer: "other", chain: 7), jobs: jobs, now: Self.t0) == [.gathered(job: "settle", count: 1, chain: 7)])
        #expect(writes.byJob["settle"]?.chain == 8)
        #expect(writes.take(Self.gifts("b", writer: "other", chain: 8), jobs: jobs, now: Self.t0) == [.ignored(job: "settle", reason: .chainLimit)])
        #expect(writes.byJob["settle"]?.paths == [Self.path("gifts/a")])
    }

    @Test func lostWritesMakeEveryJobTheyConcernReadEverythingOnce() {
        var writes = GatheredWrites()
        let jobs = [Self.job("settle", "gifts"), Self.job("report", "users")]
        _ = writes.take(Self.gifts("a"), jobs: jobs, now: Self.t0)
        let outcomes = writes.take(.lost(collections: ["gifts"], reason: "overflow"), jobs: jobs, now: Self.t0.addingTimeInterval(1))
        #expect(outcomes == [.gathered(job: "settle", count: nil, chain: 0)])
        #expect(writes.byJob["settle"]?.readsEverything == true)
        #expect(writes.byJob["report"] == nil)
    }

    @Test func aRunIsTakenOnlyOnceDueAndThenItsWritesAreGone() {
        var writes = GatheredWrites()
        _ = writes.take(Self.gifts("a"), jobs: [Self.job("settle", "gifts", delay: .seconds(2))], now: Self.t0)
        #expect(writes.takeDue("settle", now: Self.t0.addingTimeInterval(1)) == nil)
        #expect(writes.takeDue("settle", now: Self.t0.addingTimeInterval(2))?.paths == [Self.path("gifts/a")])
        #expect(writes.takeDue("settle", now: Self.t0.addingTimeInterval(3)) == nil)
    }

    @Test func theNextDueRunIsTheEarliestOfTheJobsThatCanStart() {
        var writes = GatheredWrites()
        _ = writes.take(Self.gifts("a"), jobs: [Self.job("early", "gifts", delay: .seconds(1))], now: Self.t0)
        _ = writes.take(Self.gifts("b"), jobs: [Self.job("late", "gifts", delay: .seconds(5))], now: Self.t0)
        #expect(writes.nextDue { _ in true } == Self.t0.addingTimeInterval(1))
        #expect(writes.nextDue { $0 != "early" } == Self.t0.addingTimeInterval(5))
        #expect(writes.nextDue { _ in false } == nil)
    }

    @Test func jobsThatLostTheirTriggersDropTheirWrites() {
        var writes = GatheredWrites()
        _ = writes.take(Self.gifts("a"), jobs: [Self.job("settle", "gifts"), Self.job("notify", "gifts")], now: Self.t0)
        writes.keep(only: ["notify"])
        #expect(writes.byJob.keys.sorted() == ["notify"])
    }
}
