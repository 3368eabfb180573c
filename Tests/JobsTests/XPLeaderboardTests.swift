import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing

/// docs/jobs/xp-leaderboard.md#rules on a hand-made data set, in America/Chicago, at
/// T = Wednesday 2026-11-18 12:00Z: the ISO week starts Monday 2026-11-16 00:00 CST = 06:00Z,
/// the month 2026-11-01 00:00 CDT = 05:00Z.
@Suite("xp-leaderboard")
struct XPLeaderboardTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"
    static let config = """
        [jobs.xp-leaderboard]
        timeZone = "America/Chicago"
        """

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("users/ann", #"{"displayName": "Ann", "email": "ann@example.com", "photoURL": "https://p.example/ann.jpg"}"#)
        try d.writeDocument("users/ben", #"{"email": "ben@example.com", "profilePicture": "https://p.example/ben.png"}"#)
        try d.writeDocument("users/cat", #"{"displayName": "Cat", "public": false}"#)
        try d.writeDocument("users/dan", #"{"displayName": "Dan", "photoURL": "", "public": true}"#)
        try d.writeDocument("users/eve", #"{"displayName": "Eve"}"#)
        try d.writeDocument("userXP/ann", #"{"userId": "ann", "totalXP": 3000, "currentLevel": 3}"#)
        try d.writeDocument("userXP/ben", #"{"userId": "ben", "totalXP": 3000, "currentLevel": 3}"#)
        try d.writeDocument("userXP/cat", #"{"userId": "cat", "totalXP": 5000, "currentLevel": 4}"#)
        try d.writeDocument("userXP/dan", #"{"userId": "dan", "totalXP": 0, "currentLevel": 1}"#)
        try d.writeDocument("userXP/ghost", #"{"userId": "ghost", "totalXP": 9999, "currentLevel": 4}"#)
        func tx(_ id: String, _ user: String, _ source: String, _ amount: String, _ at: String?) throws {
            let created = at.map { #", "createdAt": "\#($0)""# } ?? ""
            try d.writeDocument("xpTransactions/\(id)", #"{"userId": "\#(user)", "amount": \#(amount), "source": "\#(source)"\#(created)}"#)
        }
        try tx("x01", "ann", "trade_completed", "500", "2026-11-16T06:00:00Z")  // the week's first instant: in
        try tx("x02", "ben", "trade_completed", "500", "2026-11-16T05:59:59Z")  // just before the week: month only
        try tx("x03", "cat", "challenge_completed", "300", "2026-11-17T00:00:00Z")
        try tx("x04", "dan", "collaboration_completed", "400", "2026-11-01T05:00:00Z")  // the month's first instant: in
        try tx("x05", "dan", "trade_completed", "500", "2026-11-01T04:59:59Z")  // Oct 31 in Chicago: all-time only
        try tx("x06", "ann", "achievement_unlocked", "100", "2026-11-18T11:59:59Z")  // global only
        try tx("x07", "ann", "trade_completed", "500", "2026-11-18T12:00:00Z")  // at T: all-time only
        try tx("x08", "ghost", "trade_completed", "500", "2026-11-17T00:00:00Z")  // no users document
        try tx("x09", "ben", "trade_completed", #""500""#, "2026-11-17T00:00:00Z")  // not an integer
        try tx("x10", "ben", "trade_completed", "200", nil)  // no date: all-time only
        return d
    }

    /// `userId:xp:rank` of each entry, and the total ranked.
    func standings(_ d: TestDataDirectory, _ board: String) throws -> String {
        let o = try #require(try d.object("leaderboards/\(board)"))
        let entries = try #require(o["entries"]?.arrayValue).map { e in
            let e = e.objectValue!
            return "\(e["userId"]!.stringValue!):\(e["xp"]!.intValue!):\(e["rank"]!.intValue!)"
        }
        return entries.joined(separator: " ") + " / \(o["totalCount"]!.intValue!)"
    }

    @Test func writesEveryBoardExactly() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "xp-leaderboard", now: Self.now, config: Self.config)
        #expect(outcome.plan.summaryLine == "Applied: 12 to create, 0 to update, 0 to delete; 0 pushes, 0 webhooks.")
        // global / all-time is userXP.totalXP; cat is ranked first but private, so not listed;
        // ann and ben tie; ben has no displayName ("User", never the e-mail) and his photo is
        // his profilePicture; dan has 0 XP; ghost has no users document.
        #expect(d.documentText("leaderboards/global-all-time") == """
            {
              "category": "global",
              "timeframe": "all-time",
              "entries": [
                {
                  "userId": "ann",
                  "displayName": "Ann",
                  "photoURL": "https://p.example/ann.jpg",
                  "xp": 3000,
                  "level": 3,
                  "rank": 2
                },
                {
                  "userId": "ben",
                  "displayName": "User",
                  "photoURL": "https://p.example/ben.png",
                  "xp": 3000,
                  "level": 3,
                  "rank": 2
                }
              ],
              "totalCount": 3,
              "lastUpdated": "\(Self.S)"
            }
            """)
        #expect(d.documentText("leaderboards/collaborations-monthly") == """
            {
              "category": "collaborations",
              "timeframe": "monthly",
              "entries": [
                {
                  "userId": "dan",
                  "displayName": "Dan",
                  "photoURL": null,
                  "xp": 400,
                  "level": 1,
                  "rank": 1
                }
              ],
              "totalCount": 1,
              "lastUpdated": "\(Self.S)",
              "periodStart": "2026-11-01T05:00:00.000Z"
            }
            """)
        #expect(try d.object("leaderboards/global-weekly")?["periodStart"] == "2026-11-16T06:00:00.000Z")
        #expect(try standings(d, "global-weekly") == "ann:600:1 / 2")
        #expect(try standings(d, "global-monthly") == "ann:600:1 ben:500:2 dan:400:3 / 4")
        #expect(try standings(d, "trades-all-time") == "ann:1000:1 ben:700:2 dan:500:3 / 3")
        #expect(try standings(d, "trades-monthly") == "ann:500:1 ben:500:1 / 2")
        #expect(try standings(d, "trades-weekly") == "ann:500:1 / 1")
        #expect(try standings(d, "challenges-all-time") == " / 1")
        #expect(try standings(d, "challenges-weekly") == " / 1")
        #expect(try standings(d, "collaborations-all-time") == "dan:400:1 / 1")
        #expect(try standings(d, "collaborations-weekly") == " / 0")
    }

    @Test func aBoardIsRewrittenOnlyWhenItsStandingsChangeKeepingOtherFields() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("xp-leaderboard", now: Self.now, config: Self.config)
        let again = try await d.run("xp-leaderboard", now: Self.now, config: Self.config)
        #expect(again.plan.summaryLine == "No changes.")

        // A field someone else added is kept. Half an hour later, with a new trade XP, the trades
        // and global boards change (x07, at 12:00, is now inside the windows too); the others,
        // and global / all-time (userXP), keep their bytes and lastUpdated.
        let path = "leaderboards/trades-weekly"
        let text = try #require(d.documentText(path))
        try d.writeDocument(path, text.dropLast(2) + ",\n  \"pinned\": true\n}")
        try d.writeDocument("xpTransactions/x11", #"{"userId": "dan", "amount": 50, "source": "trade_completed", "createdAt": "2026-11-18T12:10:00Z"}"#)
        let later = try await d.run("xp-leaderboard", now: "2026-11-18T12:30:00Z", config: Self.config)
        #expect(later.plan.changes.map(\.path.description) == [
            "leaderboards/global-monthly", "leaderboards/global-weekly",
            "leaderboards/trades-all-time", "leaderboards/trades-monthly", "leaderboards/trades-weekly",
        ])
        let board = try #require(try d.object(path))
        #expect(board["pinned"] == true)
        #expect(board["lastUpdated"] == "2026-11-18T12:30:00.000Z")
        #expect(try standings(d, "trades-weekly") == "ann:1000:1 dan:50:2 / 2")
        #expect(try d.object("leaderboards/global-all-time")?["lastUpdated"] == .string(Self.S))
    }

    @Test func paramsChooseTheBoardsAndHowManyAreListed() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("xp-leaderboard", now: Self.now, params: ["top": "1", "timeframes": "monthly", "categories": "global,trades"], config: Self.config)
        #expect(d.ids("leaderboards") == ["global-monthly", "trades-monthly"])
        #expect(try standings(d, "global-monthly") == "ann:600:1 / 4")
        #expect(try standings(d, "trades-monthly") == "ann:500:1 / 2")
    }

    @Test func aUserWithAWrongFieldTypeIsSkippedWithAWarning() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("users/ann", #"{"displayName": ["Ann"]}"#)
        let outcome = try await d.run("xp-leaderboard", now: Self.now, params: ["categories": "global", "timeframes": "all-time"], config: Self.config)
        #expect(outcome.record.warnings == [#"users/ann.json: field "displayName": expected string, found array of 1"#])
        #expect(try standings(d, "global-all-time") == "ben:3000:2 / 2")
        try await GamificationCheck.expectFailsOnInvalid(
            d, "xp-leaderboard", now: Self.now, config: Self.config, message: #"users/ann.json: field "displayName": expected string, found array of 1"#)
    }
}
