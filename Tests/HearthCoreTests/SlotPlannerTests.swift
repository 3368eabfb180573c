import Foundation
import HearthKit
import HearthSchedule
@testable import HearthHost
import Testing

/// The slot and catch-up decisions (docs/scheduler.md#running-the-daemon,
/// docs/scheduler.md#policies), without a daemon: ``SlotPlanner`` asked about a `*/15` job.
@Suite("Slot planner")
struct SlotPlannerTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func at(_ text: String) -> Date { Timestamp.parseISO8601(text)! }

    static let planner = SlotPlanner(missedAfter: .seconds(60), random: AnyRandomNumberGenerator(SplitMix64(seed: 42)))

    static func job(
        next: String, paused: Bool = false, busy: Bool = false, slotQueued: Bool = false, policy: (inout JobPolicy) -> Void = { _ in }
    ) throws -> SlotPlanner.Job {
        var p = JobPolicy()
        policy(&p)
        return SlotPlanner.Job(
            schedule: try Schedule(parsing: "*/15 * * * *"), timeZone: utc, policy: p, nextSlot: at(next), paused: paused, busy: busy, slotQueued: slotQueued)
    }

    @Test func anIdleJobRunsItsSlotAndTheNextSlotFollowsTheSlotNotTheClock() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z"), now: Self.at("2026-11-18T12:00:00.250Z"))
        #expect(d.onTime == .run(Self.at("2026-11-18T12:00:00Z")))
        #expect(d.missed.isEmpty && d.skippedCatchUp.isEmpty && d.caughtUp.isEmpty && d.paused.isEmpty)
        #expect(d.lastSlot == Self.at("2026-11-18T12:00:00Z"))
        #expect(d.nextSlot == Self.at("2026-11-18T12:15:00Z"))
    }

    @Test func aSlotReachedMoreThanAMinuteLateIsMissedAndLatestCatchesItUp() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z"), now: Self.at("2026-11-18T12:01:30Z"))
        #expect(d.onTime == nil)
        #expect(d.missed == [Self.at("2026-11-18T12:00:00Z")])
        #expect(d.caughtUp == [Self.at("2026-11-18T12:00:00Z")])
        #expect(d.skippedCatchUp.isEmpty)
    }

    @Test func latestRunsOnlyTheMostRecentMissedSlotAndSkipsTheOthers() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z"), now: Self.at("2026-11-18T12:50:00Z"))
        #expect(d.skippedCatchUp == [Self.at("2026-11-18T12:00:00Z"), Self.at("2026-11-18T12:15:00Z"), Self.at("2026-11-18T12:30:00Z")])
        #expect(d.caughtUp == [Self.at("2026-11-18T12:45:00Z")])
        #expect(d.onTime == nil)
        #expect(d.lastSlot == Self.at("2026-11-18T12:45:00Z"))
    }

    @Test func latestSkipsEveryMissedSlotWhenOneIsAlsoDueOnTime() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z"), now: Self.at("2026-11-18T12:30:10Z"))
        #expect(d.onTime == .run(Self.at("2026-11-18T12:30:00Z")))
        #expect(d.skippedCatchUp == [Self.at("2026-11-18T12:00:00Z"), Self.at("2026-11-18T12:15:00Z")])
        #expect(d.caughtUp.isEmpty)
        #expect(d.nextSlot == Self.at("2026-11-18T12:45:00Z"))
    }

    @Test func catchUpNoneRecordsEveryMissedSlotAsSkipped() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z") { $0.catchUp = .none }, now: Self.at("2026-11-18T12:20:00Z"))
        #expect(d.skippedCatchUp == [Self.at("2026-11-18T12:00:00Z"), Self.at("2026-11-18T12:15:00Z")])
        #expect(d.caughtUp.isEmpty && d.onTime == nil)
    }

    @Test func catchUpAllRunsEachMissedSlotInOrder() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z") { $0.catchUp = .all }, now: Self.at("2026-11-18T12:20:00Z"))
        #expect(d.caughtUp == [Self.at("2026-11-18T12:00:00Z"), Self.at("2026-11-18T12:15:00Z")])
        #expect(d.skippedCatchUp.isEmpty)
        #expect(d.lastSlot == Self.at("2026-11-18T12:15:00Z"))
    }

    @Test func slotsOlderThanTheCatchUpWindowAreCountedButNeitherRunNorRecorded() throws {
        let d = Self.planner.dueSlots(
            try Self.job(next: "2026-11-18T12:00:00Z") { $0.catchUpWindow = .seconds(3600) }, now: Self.at("2026-11-18T15:05:00Z"))
        #expect(d.beforeWindow == SlotPlanner.BeforeWindow(from: Self.at("2026-11-18T12:00:00Z"), windowStart: Self.at("2026-11-18T14:05:00Z"), count: 9))
        #expect(d.skippedCatchUp == [Self.at("2026-11-18T14:15:00Z"), Self.at("2026-11-18T14:30:00Z"), Self.at("2026-11-18T14:45:00Z")])
        #expect(d.caughtUp == [Self.at("2026-11-18T15:00:00Z")])
    }

    @Test func aPausedJobsDueSlotsAreAllSkippedPaused() throws {
        let d = Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z", paused: true), now: Self.at("2026-11-18T12:15:05Z"))
        #expect(d.paused == [Self.at("2026-11-18T12:00:00Z"), Self.at("2026-11-18T12:15:00Z")])
        #expect(d.onTime == nil && d.caughtUp.isEmpty && d.skippedCatchUp.isEmpty && d.missed.isEmpty)
        #expect(d.nextSlot == Self.at("2026-11-18T12:30:00Z"))
    }

    @Test func aSlotThatComesWhileTheJobIsBusyIsSkippedOrQueuedPerOverlap() throws {
        let now = Self.at("2026-11-18T12:00:01Z")
        let slot = Self.at("2026-11-18T12:00:00Z")
        #expect(Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z", busy: true), now: now).onTime == .skip(slot, queueFull: false))
        let queue: (inout JobPolicy) -> Void = { $0.overlap = .queue }
        #expect(Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z", busy: true, policy: queue), now: now).onTime == .queueBehind(slot))
        #expect(
            Self.planner.dueSlots(try Self.job(next: "2026-11-18T12:00:00Z", busy: true, slotQueued: true, policy: queue), now: now).onTime
                == .skip(slot, queueFull: true))
    }

    @Test func jitterAndRetryDelaysStayWithinTheirPolicy() {
        var planner = Self.planner
        var p = JobPolicy()
        p.jitter = .seconds(30)
        (p.backoffMin, p.backoffMax) = (.seconds(10), .seconds(300))
        for _ in 0..<50 { #expect((.zero ... .seconds(30)).contains(planner.jitter(p))) }
        for attempt in 1...5 { #expect((.zero ... .seconds(300)).contains(planner.retryDelay(after: attempt, p))) }
        p.jitter = .zero
        #expect(planner.jitter(p) == .zero)
    }
}
