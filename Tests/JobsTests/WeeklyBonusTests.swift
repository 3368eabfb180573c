import Foundation
import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing

/// docs/jobs/weekly-bonus.md#rules in America/Chicago (CST, UTC−6, in late November and January).
/// T = Monday 2026-11-23 00:05 CST = 06:05Z: the week paid is 2026-W47, Monday 2026-11-16
/// 00:00 CST = 06:00Z to Sunday 2026-11-22.
@Suite("weekly-bonus")
struct WeeklyBonusTests {
    static let config = """
        [jobs.weekly-bonus]
        timeZone = "America/Chicago"
        """
    static let monday = "2026-11-23T06:05:00Z"

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        // Active during the week: paid.
        try d.writeDocument("users/u1", """
            {
              "name": "Madison Chen",
              "username": "madisonc",
              "school": "University of Wisconsin-Madison",
              "points": 620,
              "totalPointsEarned": 700,
              "totalPointsGifted": 80,
              "lastActive": "2026-11-20T15:00:00.000Z",
              "achievements": [],
              "isPrivate": false
            }
            """)
        // Last active exactly at Monday 00:00 CST: "at or after", so paid.
        try d.writeDocument("users/u2", """
            {
              "name": "Jake Miller",
              "username": "jake2",
              "points": 10,
              "totalPointsEarned": 510,
              "lastActive": "2026-11-16T06:00:00Z"
            }
            """)
        // Sunday 23:59:59.999 CST, the week before: not paid (it would be, judged in UTC).
        try d.writeDocument("users/u3", """
            {
              "name": "Diego Garcia",
              "username": "diego3",
              "points": 900,
              "totalPointsEarned": 900,
              "lastActive": "2026-11-16T05:59:59.999Z"
            }
            """)
        // Created by an older app version: only some fields; points and totalPointsEarned
        // take the decoder's default 500. lastActive in firebase-admin's form (Nov 18 00:00Z).
        try d.writeDocument("users/u4", """
            {
              "name": "Priya Patel",
              "username": "priya4",
              "email": "priya4@example.edu",
              "lastActive": {
                "_seconds": 1794960000,
                "_nanoseconds": 0
              }
            }
            """)
        // No name or username: copied as "" (never null). Local offset in lastActive.
        try d.writeDocument("users/u5", """
            {
              "points": 0,
              "lastActive": "2026-11-22T23:00:00-06:00"
            }
            """)
        // Never active: not paid under "active".
        try d.writeDocument("users/u6", """
            {
              "name": "Aisha Okafor",
              "username": "aisha6",
              "points": 500,
              "totalPointsEarned": 500
            }
            """)
        // Someone else's transaction: untouched.
        try d.writeDocument("transactions/t1", """
            {
              "type": "gift",
              "fromUserId": "u1",
              "toUserId": "u2",
              "amount": 10,
              "status": "completed",
              "createdAt": "2026-11-17T10:00:00.000Z"
            }
            """)
        return d
    }

    static func transaction(_ user: String, week: String = "2026-W47", amount: Int = 50, name: String, username: String, at: String = "2026-11-23T06:05:00.000Z") -> String {
        """
        {
          "type": "bonus",
          "fromUserId": null,
          "toUserId": "\(user)",
          "amount": \(amount),
          "message": "Weekly bonus for \(week)",
          "status": "completed",
          "createdAt": "\(at)",
          "completedAt": "\(at)",
          "fromUserName": null,
          "toUserName": "\(name)",
          "fromUsername": null,
          "toUsername": "\(username)"
        }
        """
    }

    @Test func paysEachActiveUserOnceWithTheExactDocuments() async throws {
        let d = try makeData()
        defer { d.remove() }
        let untouched = ["users/u3", "users/u6", "transactions/t1"].map { ($0, d.text($0), GamificationCheck.mtime(d, $0)) }
        let outcome = try await d.run("weekly-bonus", now: Self.monday, config: Self.config)
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeeded)
        #expect(outcome.plan.summaryLine == "Applied: 4 to create, 4 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.ids("transactions") == ["t1", "weekly-bonus-2026-W47-u1", "weekly-bonus-2026-W47-u2", "weekly-bonus-2026-W47-u4", "weekly-bonus-2026-W47-u5"])
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u1") == Self.transaction("u1", name: "Madison Chen", username: "madisonc"))
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u2") == Self.transaction("u2", name: "Jake Miller", username: "jake2"))
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u4") == Self.transaction("u4", name: "Priya Patel", username: "priya4"))
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u5") == Self.transaction("u5", name: "", username: ""))
        #expect(d.documentText("users/u1") == """
            {
              "name": "Madison Chen",
              "username": "madisonc",
              "school": "University of Wisconsin-Madison",
              "points": 670,
              "totalPointsEarned": 750,
              "totalPointsGifted": 80,
              "lastActive": "2026-11-20T15:00:00.000Z",
              "achievements": [],
              "isPrivate": false
            }
            """)
        #expect(d.documentText("users/u2") == """
            {
              "name": "Jake Miller",
              "username": "jake2",
              "points": 60,
              "totalPointsEarned": 560,
              "lastActive": "2026-11-16T06:00:00Z"
            }
            """)
        #expect(d.documentText("users/u4") == """
            {
              "name": "Priya Patel",
              "username": "priya4",
              "email": "priya4@example.edu",
              "lastActive": {
                "_seconds": 1794960000,
                "_nanoseconds": 0
              },
              "points": 550,
              "totalPointsEarned": 550
            }
            """)
        #expect(d.documentText("users/u5") == """
            {
              "points": 50,
              "lastActive": "2026-11-22T23:00:00-06:00",
              "totalPointsEarned": 550
            }
            """)
        for (path, text, mtime) in untouched {
            #expect(d.text(path) == text, "\(path)")
            #expect(GamificationCheck.mtime(d, path) == mtime, "\(path)")
        }
        // One bonus.paid event for the run.
        #expect(outcome.plan.messages == [
            .event("bonus.paid", id: "bonus.paid-2026-W47", data: JSONObject([("week", "2026-W47"), ("users", 4), ("points", 200)])),
        ])
        #expect(GamificationCheck.pendingOutbox(d) == ["bonus.paid-2026-W47"])
    }

    @Test func runningTwicePaysOnce() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("weekly-bonus", now: Self.monday, config: Self.config)
        let afterFirst = GamificationCheck.snapshot(d)
        let again = try await d.run("weekly-bonus", now: "2026-11-23T07:05:00Z", config: Self.config)
        #expect(again.error == nil)
        #expect(again.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.snapshot(d) == afterFirst)
        #expect(d.documentText("users/u1")?.contains(#""points": 670,"#) == true)
    }

    @Test func aUserWhoAppearsLaterInTheWeekIsPaidWithoutPayingTheOthersAgain() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("weekly-bonus", now: Self.monday, config: Self.config)
        try d.writeDocument("users/u7", """
            {
              "name": "Liam Smith",
              "username": "liam7",
              "lastActive": "2026-11-21T12:00:00Z"
            }
            """)
        let later = try await d.run("weekly-bonus", now: "2026-11-23T08:00:00Z", config: Self.config)
        #expect(later.plan.summaryLine == "Applied: 1 to create, 1 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u7") == Self.transaction("u7", name: "Liam Smith", username: "liam7", at: "2026-11-23T08:00:00.000Z"))
        #expect(d.documentText("users/u7") == """
            {
              "name": "Liam Smith",
              "username": "liam7",
              "lastActive": "2026-11-21T12:00:00Z",
              "points": 550,
              "totalPointsEarned": 550
            }
            """)
        // A second event for the same week needs its own stable id (4 users were paid before).
        #expect(later.plan.messages == [
            .event("bonus.paid", id: "bonus.paid-2026-W47-after-4", data: JSONObject([("week", "2026-W47"), ("users", 1), ("points", 50)])),
        ])
    }

    @Test func mondayJustAfterMidnightAndSundayJustBeforeItPayTheRightWeeksInChicago() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/u1", """
            {
              "name": "Mei Wang",
              "username": "mei1"
            }
            """)
        // Sunday 2026-11-22 23:59 CST (05:59Z Monday in UTC): the week containing T is W47,
        // so the week paid is W46.
        let sunday = try await d.run("weekly-bonus", now: "2026-11-23T05:59:00Z", params: ["eligibility": "all"], config: Self.config)
        #expect(sunday.plan.summaryLine == "Applied: 1 to create, 1 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("transactions/weekly-bonus-2026-W46-u1") == Self.transaction("u1", week: "2026-W46", name: "Mei Wang", username: "mei1", at: "2026-11-23T05:59:00.000Z"))
        // Monday 2026-11-23 00:05 CST: W47.
        let monday = try await d.run("weekly-bonus", now: Self.monday, params: ["eligibility": "all"], config: Self.config)
        #expect(monday.plan.summaryLine == "Applied: 1 to create, 1 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u1") == Self.transaction("u1", name: "Mei Wang", username: "mei1"))
        #expect(d.ids("transactions") == ["weekly-bonus-2026-W46-u1", "weekly-bonus-2026-W47-u1"])
        #expect(d.documentText("users/u1") == """
            {
              "name": "Mei Wang",
              "username": "mei1",
              "points": 600,
              "totalPointsEarned": 600
            }
            """)
    }

    @Test func theWeekNumberingYearBoundaryBetween2026W53And2027W01() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/u1", """
            {
              "name": "Noah Johnson",
              "username": "noah1",
              "points": 100,
              "totalPointsEarned": 600,
              "lastActive": "2027-01-10T18:00:00Z"
            }
            """)
        let cfg = Self.config + "\n[jobs.weekly-bonus.params]\namount = 25\n"
        // Sunday 2027-01-03 23:00 CST: that day is still in 2026-W53, so W52 is paid.
        _ = try await d.run("weekly-bonus", now: "2027-01-04T05:00:00Z", config: cfg)
        // Monday 2027-01-04 00:05 CST: the week that ended began Monday 2026-12-28: 2026-W53.
        _ = try await d.run("weekly-bonus", now: "2027-01-04T06:05:00Z", config: cfg)
        // Monday 2027-01-11: the week of Monday 2027-01-04 is 2027-W01.
        _ = try await d.run("weekly-bonus", now: "2027-01-11T06:05:00Z", config: cfg)
        #expect(d.ids("transactions") == ["weekly-bonus-2026-W52-u1", "weekly-bonus-2026-W53-u1", "weekly-bonus-2027-W01-u1"])
        #expect(d.documentText("transactions/weekly-bonus-2026-W53-u1") == Self.transaction("u1", week: "2026-W53", amount: 25, name: "Noah Johnson", username: "noah1", at: "2027-01-04T06:05:00.000Z"))
        #expect(d.documentText("transactions/weekly-bonus-2027-W01-u1") == Self.transaction("u1", week: "2027-W01", amount: 25, name: "Noah Johnson", username: "noah1", at: "2027-01-11T06:05:00.000Z"))
        #expect(d.documentText("users/u1") == """
            {
              "name": "Noah Johnson",
              "username": "noah1",
              "points": 175,
              "totalPointsEarned": 675,
              "lastActive": "2027-01-10T18:00:00Z"
            }
            """)
    }

    @Test func theISOWeekBeforeTIsComputedInTheJobsZone() {
        let chicago = TimeZone(identifier: "America/Chicago")!
        func week(_ t: String, _ zone: TimeZone = chicago) -> String {
            WeeklyBonus.weekPaid(at: Timestamp.parseISO8601(t)!, in: zone).id
        }
        #expect(week("2026-11-23T06:05:00Z") == "2026-W47")
        #expect(week("2026-11-23T05:59:00Z") == "2026-W46")
        #expect(week("2026-11-23T05:59:00Z", TimeZone(identifier: "UTC")!) == "2026-W47")
        #expect(week("2027-01-04T06:05:00Z") == "2026-W53")
        #expect(week("2027-01-11T06:05:00Z") == "2027-W01")
        #expect(week("2026-01-05T06:05:00Z") == "2026-W01")
        #expect(week("2026-01-04T12:00:00Z") == "2025-W52")
    }

    @Test func eligibilityAllPaysUsersWhoWereNotActive() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("weekly-bonus", now: Self.monday, params: ["eligibility": "all"], config: Self.config)
        #expect(outcome.plan.summaryLine == "Applied: 6 to create, 6 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("transactions/weekly-bonus-2026-W47-u6") == Self.transaction("u6", name: "Aisha Okafor", username: "aisha6"))
        #expect(d.documentText("users/u3") == """
            {
              "name": "Diego Garcia",
              "username": "diego3",
              "points": 950,
              "totalPointsEarned": 950,
              "lastActive": "2026-11-16T05:59:59.999Z"
            }
            """)
        #expect(outcome.plan.messages.first?.payload == JSONObject([("week", "2026-W47"), ("users", 6), ("points", 300)]))
    }

    @Test func nobodyEligibleMeansNoEvent() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/u1", #"{"name": "Old", "lastActive": "2026-10-01T00:00:00Z"}"#)
        let outcome = try await d.run("weekly-bonus", now: Self.monday, config: Self.config)
        #expect(outcome.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.pendingOutbox(d).isEmpty)
    }

    @Test func theDryRunPlanListsExactlyWhatTheRealRunWrites() async throws {
        let d = try makeData()
        defer { d.remove() }
        let real = try await GamificationCheck.expectPlanMatchesRun(d, "weekly-bonus", now: Self.monday, config: Self.config)
        #expect(real.plan.changes.map { "\($0.action.rawValue) \($0.path)" } == [
            "create transactions/weekly-bonus-2026-W47-u1", "create transactions/weekly-bonus-2026-W47-u2",
            "create transactions/weekly-bonus-2026-W47-u4", "create transactions/weekly-bonus-2026-W47-u5",
            "update users/u1", "update users/u2", "update users/u4", "update users/u5",
        ])
        let u1 = try #require(real.plan.changes.first { $0.path.description == "users/u1" })
        #expect(u1.fields.map { "\($0.field): \($0.before.map(JSONWriter.compact) ?? "-") → \($0.after.map(JSONWriter.compact) ?? "-")" } == [
            "points: 620 → 670", "totalPointsEarned: 700 → 750",
        ])
    }

    @Test func aUserWithAWrongFieldTypeIsSkippedAndNeverRewritten() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("users/u42", #"{"name": "Zed", "points": "12", "lastActive": "2026-11-20T15:00:00Z"}"#)
        let mtime = GamificationCheck.mtime(d, "users/u42")
        let outcome = try await d.run("weekly-bonus", now: Self.monday, config: Self.config)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [#"users/u42.json: field "points": expected integer, found string "12""#])
        #expect(d.text("users/u42") == #"{"name": "Zed", "points": "12", "lastActive": "2026-11-20T15:00:00Z"}"# + "\n")
        #expect(GamificationCheck.mtime(d, "users/u42") == mtime)
        #expect(d.text("transactions/weekly-bonus-2026-W47-u42") == nil)
        #expect(d.ids("transactions").count == 5)
    }

    @Test func onInvalidDocumentFailMakesTheRunFailAndCommitNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("users/u42", #"{"name": "Zed", "points": "12", "lastActive": "2026-11-20T15:00:00Z"}"#)
        try await GamificationCheck.expectFailsOnInvalid(
            d, "weekly-bonus", now: Self.monday, config: Self.config,
            message: #"users/u42.json: field "points": expected integer, found string "12""#)
    }
}
