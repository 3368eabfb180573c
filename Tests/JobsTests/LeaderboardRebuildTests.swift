import HearthKit
import HearthStore
import HearthHost
import Testing

/// docs/jobs/leaderboard-rebuild.md#rules on a hand-made data set, in America/Chicago, at T = Wednesday 2026-11-18 12:00Z.
/// The ISO week starts Monday 2026-11-16 00:00 CST = 06:00Z; the month starts
/// 2026-11-01 00:00 CDT = 05:00Z (DST ends later that night).
@Suite("leaderboard-rebuild")
struct LeaderboardRebuildTests {
    static let config = """
        [jobs.leaderboard-rebuild]
        timeZone = "America/Chicago"
        [jobs.leaderboard-rebuild.params]
        top = 4
        """

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        // Generosity thresholds at their boundaries: 10000 Legend, 9999/2000 Champion,
        // 1999/500 Giver, 499/100 Helper, 99/0 Newbie.
        try d.write("users/hank", #"{"name": "Hank", "username": "hank", "school": "UW", "totalPointsGifted": 10000, "giftsGiven": 1, "rank": 1, "generosityLevel": "Legend", "generosityScore": 2}"#)
        try d.write("users/ivy", #"{"name": "Ivy", "username": "ivy", "school": "UW", "totalPointsGifted": 9999, "giftsGiven": 60}"#)
        try d.write("users/jay", #"{"name": "Jay", "username": "jay", "school": "OSU", "totalPointsGifted": 2000, "giftsGiven": 3}"#)
        try d.write("users/kim", #"{"name": "Kim", "totalPointsGifted": 1999, "giftsGiven": 2}"#)
        try d.write("users/alice", #"{"name": "Alice", "username": "alice", "school": "UW", "totalPointsGifted": 500, "giftsGiven": 10, "custom": {"keep": true}}"#)
        try d.write("users/bob", #"{"name": "Bob", "username": "bob", "school": "UW", "totalPointsGifted": 500, "giftsGiven": 10}"#)
        try d.write("users/carol", #"{"name": "Carol", "username": "carol", "school": "UW", "totalPointsGifted": 499, "giftsGiven": 9}"#)
        try d.write("users/dave", #"{"name": "Dave", "username": "dave", "school": "UW", "totalPointsGifted": 100, "giftsGiven": 50, "isPrivate": true}"#)
        try d.write("users/gina", #"{"name": "Gina", "username": "gina", "school": "UW", "totalPointsGifted": 99, "giftsGiven": 1}"#)
        try d.write("users/erin", #"{"name": "Erin", "username": "erin"}"#)
        try d.write("users/frank", #"{"name": "Frank", "username": "frank", "rank": 10}"#)

        func gift(_ id: String, _ from: String?, _ amount: Int, _ at: String, status: String = "completed", type: String = "gift") throws {
            let fromJSON = from.map { "\"\($0)\"" } ?? "null"
            try d.write("transactions/\(id)", #"{"type": "\#(type)", "fromUserId": \#(fromJSON), "toUserId": "erin", "amount": \#(amount), "status": "\#(status)", "createdAt": \#(at)}"#)
        }
        try gift("g01", "dave", 30, #""2026-11-16T06:00:00.000Z""#)  // exactly the week's start: in
        try gift("g02", "alice", 20, #""2026-11-16T05:59:59.999Z""#)  // just before: month only
        try gift("g03", "bob", 30, #""2026-11-18T11:59:59Z""#)  // just before T: in
        try gift("g04", "alice", 10, #""2026-11-18T12:00:00Z""#)  // at T: out
        try gift("g05", "carol", 30, #""2026-11-17T00:00:00Z""#, status: "pending")
        try gift("g06", "ghost", 50, #""2026-11-17T00:00:00Z""#)  // no user document: warned
        try gift("g07", "erin", 50, #""2026-11-17T00:00:00Z""#, type: "bonus")
        try gift("g08", nil, 50, #""2026-11-17T00:00:00Z""#)
        try gift("g09", "kim", 10, #""2026-11-01T05:00:00Z""#)  // exactly the month's start: in
        try gift("g10", "jay", 10, #""2026-11-01T04:59:59Z""#)  // Oct 31, 23:59:59 CDT: out
        try gift("g11", "ivy", 15, #"{"_seconds": 1794873600, "_nanoseconds": 0}"#)
        return d
    }

    @Test func writesTheThreeLeaderboardsExactly() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [
            "weekly: skipped 1 completed gift(s) from 1 user id(s) with no users document (ghost)",
            "monthly: skipped 1 completed gift(s) from 1 user id(s) with no users document (ghost)",
        ])
        // Competition ranking with a tie (bob = dave); dave is private: counted, not listed.
        #expect(d.text("leaderboard_cache/weekly") == """
            {
              "type": "weekly",
              "topUsers": [
                {
                  "userId": "bob",
                  "name": "Bob",
                  "username": "bob",
                  "school": "UW",
                  "giftsGiven": 1,
                  "totalPointsGifted": 30,
                  "rank": 1
                },
                {
                  "userId": "ivy",
                  "name": "Ivy",
                  "username": "ivy",
                  "school": "UW",
                  "giftsGiven": 1,
                  "totalPointsGifted": 15,
                  "rank": 3
                }
              ],
              "lastUpdated": "2026-11-18T12:00:00.000Z",
              "totalUsers": 3,
              "periodStart": "2026-11-16T06:00:00.000Z"
            }

            """)
        let monthly = try #require(try d.object("leaderboard_cache/monthly"))
        #expect(monthly["totalUsers"] == .int(5))
        #expect(monthly["periodStart"] == .string("2026-11-01T05:00:00.000Z"))
        let monthlyTop = try #require(monthly["topUsers"]?.arrayValue).map { e in
            "\(e.objectValue!["userId"]!.stringValue!):\(e.objectValue!["rank"]!.intValue!):\(e.objectValue!["totalPointsGifted"]!.intValue!)"
        }
        #expect(monthlyTop == ["bob:1:30", "alice:3:20", "ivy:4:15", "kim:5:10"])

        // All-time: a missing username / school is "" (never null).
        let alltime = try #require(try d.object("leaderboard_cache/alltime"))
        #expect(alltime["totalUsers"] == .int(11))
        #expect(alltime["periodStart"] == nil)
        #expect(JSONWriter.compact(alltime["topUsers"]!) == #"[{"userId":"hank","name":"Hank","username":"hank","school":"UW","giftsGiven":1,"totalPointsGifted":10000,"rank":1},{"userId":"ivy","name":"Ivy","username":"ivy","school":"UW","giftsGiven":60,"totalPointsGifted":9999,"rank":2},{"userId":"jay","name":"Jay","username":"jay","school":"OSU","giftsGiven":3,"totalPointsGifted":2000,"rank":3},{"userId":"kim","name":"Kim","username":"","school":"","giftsGiven":2,"totalPointsGifted":1999,"rank":4}]"#)
    }

    @Test func everyUserGetsRankLevelAndScoreWhereAValueChangedOrTheFieldIsMissing() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        // hank already had rank 1, Legend and score 2: his bytes are untouched.
        #expect(d.text("users/hank") == #"{"name": "Hank", "username": "hank", "school": "UW", "totalPointsGifted": 10000, "giftsGiven": 1, "rank": 1, "generosityLevel": "Legend", "generosityScore": 2}"#)
        // Unknown fields stay; new fields are appended in rank, level, score order.
        #expect(d.text("users/alice") == """
            {
              "name": "Alice",
              "username": "alice",
              "school": "UW",
              "totalPointsGifted": 500,
              "giftsGiven": 10,
              "custom": {
                "keep": true
              },
              "rank": 5,
              "generosityLevel": "Giver",
              "generosityScore": 20
            }

            """)
        func fields(_ id: String) throws -> String {
            let o = try #require(try d.object("users/\(id)"))
            return ["rank", "generosityLevel", "generosityScore"].map { o[$0].map(JSONWriter.compact) ?? "-" }.joined(separator: " ")
        }
        #expect(try fields("ivy") == #"2 "Champion" 100"#)
        #expect(try fields("jay") == #"3 "Champion" 6"#)
        #expect(try fields("kim") == #"4 "Giver" 4"#)
        #expect(try fields("bob") == #"5 "Giver" 20"#)
        #expect(try fields("carol") == #"7 "Helper" 18"#)
        #expect(try fields("dave") == #"8 "Helper" 100"#)
        // gina, erin: level and score equal the defaults but the fields were missing: written.
        #expect(try fields("gina") == #"9 "Newbie" 2"#)
        #expect(try fields("erin") == #"10 "Newbie" 0"#)
        // frank already had rank 10; the missing level and score are written with the defaults.
        #expect(d.text("users/frank") == """
            {
              "name": "Frank",
              "username": "frank",
              "rank": 10,
              "generosityLevel": "Newbie",
              "generosityScore": 0
            }

            """)
        // hank had all three with the right values: not rewritten at all.
        #expect(d.text("users/hank") == #"{"name": "Hank", "username": "hank", "school": "UW", "totalPointsGifted": 10000, "giftsGiven": 1, "rank": 1, "generosityLevel": "Legend", "generosityScore": 2}"#)
    }

    @Test func aSecondRunAtTheSameTimeChangesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        let again = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        #expect(again.plan.summaryLine == "No changes.")
    }

    @Test func theDryRunPlanListsExactlyWhatTheRealRunWrites() async throws {
        let d = try makeData()
        defer { d.remove() }
        let plan = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", dryRun: true, config: Self.config)
        #expect(d.ids("leaderboard_cache") == [])
        let before = Dictionary(uniqueKeysWithValues: d.ids("users").map { ($0, d.text("users/\($0)")!) })
        let real = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        #expect(plan.plan.summaryLine == "Plan: 3 to create, 10 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(real.plan.summaryLine == "Applied: 3 to create, 10 to update, 0 to delete; 0 pushes, 0 webhooks.")
        let changedUsers = d.ids("users").filter { d.text("users/\($0)") != before[$0] }.map { "users/\($0)" }
        let planned = plan.plan.changes.map(\.path.description)
        #expect(planned == ["leaderboard_cache/alltime", "leaderboard_cache/monthly", "leaderboard_cache/weekly"] + changedUsers)
    }

    @Test func aUserWithAWrongFieldTypeIsSkippedAndNeverRewritten() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.write("users/zed", #"{"name": "Zed", "totalPointsGifted": "12"}"#)
        let outcome = try await d.run("leaderboard-rebuild", now: "2026-11-18T12:00:00Z", config: Self.config)
        #expect(outcome.record.warnings.first == #"users/zed.json: field "totalPointsGifted": expected integer, found string "12""#)
        #expect(d.text("users/zed") == #"{"name": "Zed", "totalPointsGifted": "12"}"#)
        #expect(try d.object("leaderboard_cache/alltime")?["totalUsers"] == .int(11))

        let failing = try await d.run("leaderboard-rebuild", now: "2026-11-18T13:00:00Z", config: Self.config + "\n[defaults]\nonInvalidDocument = \"fail\"\n")
        #expect(failing.error is InvalidInputError)
        #expect(failing.record.status == .failed)
    }
}
