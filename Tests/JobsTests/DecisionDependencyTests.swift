import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// What each job's final decisions rest on beyond the documents it writes
/// (docs/jobs/README.md#what-a-decision-rests-on): an award on its completed source, a friend
/// notification on its friendship, a streak's outcome on its user's zone. A change to one before
/// the commit makes the commit a conflict, and the run decides again.
@Suite("what jobs' decisions rest on")
struct DecisionDependencyTests {
    static let now = "2026-11-18T12:00:00Z"

    static func dependencies(_ run: TestJobContext) -> [String] { GiftSettleDependencyTests.dependencies(run) }

    @Test func anXPAwardRestsOnItsSourceBeingCompleted() async throws {
        let store = try InMemoryStore(documents: [
            "trades/t1": #"{"creatorId": "alice", "participantId": "bob", "status": "completed", "completedAt": "2026-11-10T10:00:00Z"}"#,
            "trades/t2": #"{"creatorId": "alice", "status": "open"}"#,
        ])
        let run = try TestJobContext(XPAward.self, store: store, now: Self.now)
        try await run.run()
        #expect(Self.dependencies(run) == ["trades/t1@read"])
        // The app reopens the trade before the commit: nothing is awarded on the old state.
        try store.write("trades/t1", #"{"creatorId": "alice", "participantId": "bob", "status": "disputed"}"#)
        await #expect(throws: TestCommitConflict.self) { try await run.commit() }
        #expect(store.ids("xpTransactions") == [])
    }

    @Test func aFriendNotificationRestsOnItsFriendshipAsRead() async throws {
        let store = try InMemoryStore(documents: [
            "users/amy": #"{"name": "Amy Chen"}"#,
            "users/bo": #"{"name": "Bo Kim"}"#,
            "friendships/f1": FriendNotifyTests.friendship("amy", "bo", "pending", by: "amy", created: "2026-11-18T11:00:00Z"),
        ])
        let run = try TestJobContext(FriendNotify.self, store: store, now: Self.now, environment: .hostDefaults())
        try await run.run()
        #expect(Self.dependencies(run) == ["friendships/f1@read"])
        try store.remove("friendships/f1")   // the request withdrawn meanwhile
        await #expect(throws: TestCommitConflict.self) { try await run.commit() }
        #expect(store.ids("notifications") == [])
    }

    @Test func aStreaksOutcomeRestsOnItsUsersZoneAndOnlyAChangedStreaksDoes() async throws {
        let store = try InMemoryStore(documents: [
            "users/kiri": #"{"timeZone": "Pacific/Kiritimati"}"#,
            "streaks/kiri_login": StreakResetTests.streak("kiri", current: 5, longest: 9, freezes: 0, last: "2026-11-10T09:30:00.000Z"),
            "streaks/pago_login": StreakResetTests.streak("pago", current: 5, longest: 9, freezes: 0, last: "2026-11-10T09:30:00.000Z"),
            "streaks/fresh_login": StreakResetTests.streak("kiri", current: 1, longest: 9, freezes: 0, last: "2026-11-18T09:30:00.000Z", extra: "").replacingOccurrences(of: "\"kiri\"", with: "\"fresh\""),
        ])
        let run = try TestJobContext(StreakReset.self, store: store, now: Self.now)
        try await run.run()
        // kiri's streak is reset in her zone; pago has no user document (the job's zone); fresh's
        // streak is untouched, so its user is no dependency.
        #expect(run.changeset.entries.map(\.path.description) == ["streaks/kiri_login", "streaks/pago_login"])
        #expect(Self.dependencies(run) == ["users/kiri@read", "users/pago@absent"])
    }
    @Test func aReportsRejectionRestsOnWhatItFoundAbsentOrTheTradesCreator() async throws {
        let store = try InMemoryStore(documents: [
            "users/bob": #"{"name": "Bob"}"#,
            "trades/t1": #"{"creatorId": "bob", "visibility": "public"}"#,
            "reports/r1": ReportTriageTests.report(#""bob""#, #""trade""#, #""t9""#),
            "reports/r2": ReportTriageTests.report(#""zed""#, #""trade""#, #""t1""#, at: #""2026-11-18T10:01:00Z""#),
            "reports/r3": ReportTriageTests.report(#""bob""#, #""trade""#, #""t1""#, at: #""2026-11-18T10:02:00Z""#),
        ])
        let run = try TestJobContext(ReportTriage.self, store: store, now: Self.now)
        try await run.run()
        #expect(run.changeset.entries.map { "\($0.path) \($0.after?["rejectReason"]?.stringValue ?? "")" } == [
            "reports/r1 content_not_found", "reports/r2 unknown_reporter", "reports/r3 own_content",
        ])
        #expect(Self.dependencies(run) == ["trades/t9@absent", "users/zed@absent", "trades/t1@read"])
        try store.write("trades/t9", #"{"creatorId": "amy", "visibility": "public"}"#)   // the app's slow write lands
        await #expect(throws: TestCommitConflict.self) { try await run.commit() }
    }
}
