import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing

/// docs/jobs/xp-award.md#rules with the default amounts (trade 500, challenge 300, collaboration 400) at
/// T = S = 2026-11-20 12:00Z.
@Suite("xp-award")
struct XPAwardTests {
    static let now = "2026-11-20T12:00:00Z"

    /// An xpTransactions document as the test expects it, written out field by field.
    static func tx(_ user: String, _ amount: Int, _ source: String, _ sourceID: String, _ description: String,
                   previousTotal: Int, newTotal: Int, previousLevel: Int, newLevel: Int) -> String {
        """
        {
          "userId": "\(user)",
          "amount": \(amount),
          "source": "\(source)",
          "sourceId": "\(sourceID)",
          "description": "\(description)",
          "previousTotal": \(previousTotal),
          "newTotal": \(newTotal),
          "previousLevel": \(previousLevel),
          "newLevel": \(newLevel),
          "createdAt": "2026-11-20T12:00:00.000Z"
        }
        """
    }

    /// alice: 900 XP, four awards that take her from level 1 to level 3; bob: a stale stored
    /// level; dave and erin: no userXP yet.
    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("trades/t1", """
            {
              "title": "Guitar lessons for Spanish practice",
              "creatorId": "alice",
              "participantId": "bob",
              "status": "completed",
              "updatedAt": "2026-11-15T00:00:00Z",
              "completedAt": "2026-11-10T10:00:00Z"
            }
            """)
        // No completedAt: ordered by updatedAt (before t1 for bob). An empty participant.
        try d.writeDocument("trades/t2", """
            {
              "title": "Logo design for a meal",
              "creatorId": "bob",
              "participantId": "",
              "status": "completed",
              "updatedAt": "2026-11-09T08:00:00Z"
            }
            """)
        try d.writeDocument("trades/t3", """
            {
              "title": "Open trade",
              "creatorId": "alice",
              "participantId": "bob",
              "status": "open"
            }
            """)
        // Same completedAt as uc1: the source document id breaks the tie ("t5" < "uc1").
        try d.writeDocument("trades/t5", """
            {
              "title": "Python tutoring",
              "creatorId": "alice",
              "status": "completed",
              "completedAt": {
                "_seconds": 1794387600,
                "_nanoseconds": 0
              }
            }
            """)
        try d.writeDocument("userChallenges/uc1", """
            {
              "userId": "alice",
              "challengeId": "ch-7",
              "status": "completed",
              "completedAt": "2026-11-11T09:00:00.000Z"
            }
            """)
        try d.writeDocument("userChallenges/uc2", """
            {
              "userId": "alice",
              "challengeId": "ch-8",
              "status": "in_progress"
            }
            """)
        // Undated: after every dated award. dave is creator and also listed as participant.
        try d.writeDocument("collaborations/co1", """
            {
              "title": "Campus app hackathon team",
              "creatorId": "dave",
              "status": "completed",
              "participantIds": [
                "alice",
                "erin",
                "dave"
              ]
            }
            """)
        try d.writeDocument("userXP/alice", """
            {
              "userId": "alice",
              "totalXP": 900,
              "currentLevel": 1,
              "xpToNextLevel": 100,
              "categoryXP": {
                "trades": 900
              },
              "lastUpdated": "2026-10-01T00:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        // Stored level 1 although 1200 XP is level 2: previousLevel is taken as stored.
        try d.writeDocument("userXP/bob", """
            {
              "userId": "bob",
              "totalXP": 1200,
              "currentLevel": 1,
              "xpToNextLevel": 1300,
              "lastUpdated": "2026-10-01T00:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        return d
    }

    @Test func awardsEverySourceChainingTotalsInCompletionOrderAcrossTwoLevelTiers() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("xp-award", now: Self.now)
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeeded)
        #expect(outcome.plan.summaryLine == "Applied: 10 to create, 2 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.ids("xpTransactions") == [
            "challenge_completed-uc1-alice",
            "collaboration_completed-co1-alice", "collaboration_completed-co1-dave", "collaboration_completed-co1-erin",
            "trade_completed-t1-alice", "trade_completed-t1-bob", "trade_completed-t2-bob", "trade_completed-t5-alice",
        ])
        // alice: t1 (Nov 10), t5 and uc1 (both Nov 11 09:00; "t5" < "uc1"), co1 (undated).
        #expect(d.documentText("xpTransactions/trade_completed-t1-alice") == Self.tx("alice", 500, "trade_completed", "t1", "Trade completed", previousTotal: 900, newTotal: 1400, previousLevel: 1, newLevel: 2))
        #expect(d.documentText("xpTransactions/trade_completed-t5-alice") == Self.tx("alice", 500, "trade_completed", "t5", "Trade completed", previousTotal: 1400, newTotal: 1900, previousLevel: 2, newLevel: 2))
        #expect(d.documentText("xpTransactions/challenge_completed-uc1-alice") == Self.tx("alice", 300, "challenge_completed", "ch-7", "Challenge completed", previousTotal: 1900, newTotal: 2200, previousLevel: 2, newLevel: 2))
        #expect(d.documentText("xpTransactions/collaboration_completed-co1-alice") == Self.tx("alice", 400, "collaboration_completed", "co1", "Collaboration completed", previousTotal: 2200, newTotal: 2600, previousLevel: 2, newLevel: 3))
        #expect(d.documentText("userXP/alice") == """
            {
              "userId": "alice",
              "totalXP": 2600,
              "currentLevel": 3,
              "xpToNextLevel": 2400,
              "categoryXP": {
                "trades": 900
              },
              "lastUpdated": "2026-11-20T12:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        // bob: t2 (updatedAt Nov 9) before t1 (Nov 10); previousLevel 1 as stored.
        #expect(d.documentText("xpTransactions/trade_completed-t2-bob") == Self.tx("bob", 500, "trade_completed", "t2", "Trade completed", previousTotal: 1200, newTotal: 1700, previousLevel: 1, newLevel: 2))
        #expect(d.documentText("xpTransactions/trade_completed-t1-bob") == Self.tx("bob", 500, "trade_completed", "t1", "Trade completed", previousTotal: 1700, newTotal: 2200, previousLevel: 2, newLevel: 2))
        #expect(d.documentText("userXP/bob") == """
            {
              "userId": "bob",
              "totalXP": 2200,
              "currentLevel": 2,
              "xpToNextLevel": 300,
              "lastUpdated": "2026-11-20T12:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        // dave (creator, listed twice: one award) and erin: userXP created at 0 XP / level 1.
        #expect(d.documentText("xpTransactions/collaboration_completed-co1-dave") == Self.tx("dave", 400, "collaboration_completed", "co1", "Collaboration completed", previousTotal: 0, newTotal: 400, previousLevel: 1, newLevel: 1))
        #expect(d.documentText("xpTransactions/collaboration_completed-co1-erin") == Self.tx("erin", 400, "collaboration_completed", "co1", "Collaboration completed", previousTotal: 0, newTotal: 400, previousLevel: 1, newLevel: 1))
        for user in ["dave", "erin"] {
            #expect(d.documentText("userXP/\(user)") == """
                {
                  "userId": "\(user)",
                  "totalXP": 400,
                  "currentLevel": 1,
                  "xpToNextLevel": 600,
                  "lastUpdated": "2026-11-20T12:00:00.000Z",
                  "createdAt": "2026-11-20T12:00:00.000Z"
                }
                """)
        }
    }

    @Test func anAppWrittenTransactionWithARandomIdPreventsASecondAward() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("trades/t4", """
            {
              "creatorId": "carol",
              "participantId": "alice",
              "status": "completed",
              "completedAt": "2026-11-12T10:00:00Z"
            }
            """)
        try d.writeDocument("userChallenges/uc7", """
            {
              "userId": "alice",
              "challengeId": "ch-7",
              "status": "completed",
              "completedAt": "2026-11-12T11:00:00Z"
            }
            """)
        // The app awarded alice's side of t4 and challenge ch-7 itself, under random ids.
        let appTrade = Self.tx("alice", 500, "trade_completed", "t4", "Trade completed", previousTotal: 0, newTotal: 500, previousLevel: 1, newLevel: 1)
        let appChallenge = Self.tx("alice", 300, "challenge_completed", "ch-7", "Challenge completed", previousTotal: 500, newTotal: 800, previousLevel: 1, newLevel: 1)
        try d.writeDocument("xpTransactions/Xk29fAq1Lm", appTrade)
        try d.writeDocument("xpTransactions/pQ7rT0wz", appChallenge)
        let aliceXP = """
            {
              "userId": "alice",
              "totalXP": 800,
              "currentLevel": 1,
              "xpToNextLevel": 200
            }
            """
        try d.writeDocument("userXP/alice", aliceXP)
        let outcome = try await d.run("xp-award", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 2 to create, 0 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.ids("xpTransactions") == ["Xk29fAq1Lm", "pQ7rT0wz", "trade_completed-t4-carol"])
        #expect(d.documentText("xpTransactions/trade_completed-t4-carol") == Self.tx("carol", 500, "trade_completed", "t4", "Trade completed", previousTotal: 0, newTotal: 500, previousLevel: 1, newLevel: 1))
        #expect(d.documentText("userXP/carol") == """
            {
              "userId": "carol",
              "totalXP": 500,
              "currentLevel": 1,
              "xpToNextLevel": 500,
              "lastUpdated": "2026-11-20T12:00:00.000Z",
              "createdAt": "2026-11-20T12:00:00.000Z"
            }
            """)
        #expect(d.documentText("userXP/alice") == aliceXP)
        #expect(d.documentText("xpTransactions/Xk29fAq1Lm") == appTrade)
    }

    @Test func xpToNextLevelIsZeroAtLevelEight() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("trades/t6", """
            {
              "creatorId": "myth",
              "participantId": null,
              "status": "completed",
              "completedAt": "2026-11-01T00:00:00Z"
            }
            """)
        try d.writeDocument("userChallenges/uc9", """
            {
              "userId": "myth",
              "challengeId": "ch-1",
              "status": "completed",
              "completedAt": "2026-11-02T00:00:00Z"
            }
            """)
        try d.writeDocument("userXP/myth", """
            {
              "userId": "myth",
              "totalXP": 99800,
              "currentLevel": 7,
              "xpToNextLevel": 200
            }
            """)
        _ = try await d.run("xp-award", now: Self.now)
        #expect(d.documentText("xpTransactions/trade_completed-t6-myth") == Self.tx("myth", 500, "trade_completed", "t6", "Trade completed", previousTotal: 99800, newTotal: 100300, previousLevel: 7, newLevel: 8))
        #expect(d.documentText("xpTransactions/challenge_completed-uc9-myth") == Self.tx("myth", 300, "challenge_completed", "ch-1", "Challenge completed", previousTotal: 100300, newTotal: 100600, previousLevel: 8, newLevel: 8))
        #expect(d.documentText("userXP/myth") == """
            {
              "userId": "myth",
              "totalXP": 100600,
              "currentLevel": 8,
              "xpToNextLevel": 0,
              "lastUpdated": "2026-11-20T12:00:00.000Z"
            }
            """)
    }

    @Test func theSharedTierTableGivesEveryBoundary() {
        let expected: [(Int64, Int, Int64)] = [
            (0, 1, 1000), (999, 1, 1), (1000, 2, 1500), (2499, 2, 1), (2500, 3, 2500), (5000, 4, 5000), (10_000, 5, 10_000),
            (20_000, 6, 30_000), (50_000, 7, 50_000), (99_999, 7, 1), (100_000, 8, 0), (5_000_000, 8, 0),
        ]
        for (xp, level, toNext) in expected {
            #expect(XPLevels.tier(for: xp).level == level, "\(xp)")
            #expect(XPLevels.xpToNextLevel(xp) == toNext, "\(xp)")
        }
    }

    @Test func customAmountsAndZeroDisablesASource() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("xp-award", now: Self.now, params: ["trade": "1000", "challenge": "0", "collaboration": "0"])
        #expect(outcome.plan.summaryLine == "Applied: 4 to create, 2 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.ids("xpTransactions") == ["trade_completed-t1-alice", "trade_completed-t1-bob", "trade_completed-t2-bob", "trade_completed-t5-alice"])
        #expect(d.documentText("xpTransactions/trade_completed-t1-alice") == Self.tx("alice", 1000, "trade_completed", "t1", "Trade completed", previousTotal: 900, newTotal: 1900, previousLevel: 1, newLevel: 2))
        #expect(d.documentText("xpTransactions/trade_completed-t5-alice") == Self.tx("alice", 1000, "trade_completed", "t5", "Trade completed", previousTotal: 1900, newTotal: 2900, previousLevel: 2, newLevel: 3))
        #expect(d.documentText("xpTransactions/trade_completed-t1-bob") == Self.tx("bob", 1000, "trade_completed", "t1", "Trade completed", previousTotal: 2200, newTotal: 3200, previousLevel: 2, newLevel: 3))
    }

    @Test func aSecondRunChangesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("xp-award", now: Self.now)
        let first = GamificationCheck.snapshot(d)
        let again = try await d.run("xp-award", now: "2026-11-20T12:10:00Z")
        #expect(again.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.snapshot(d) == first)
    }

    @Test func theDryRunPlanListsExactlyWhatTheRealRunWrites() async throws {
        let d = try makeData()
        defer { d.remove() }
        let real = try await GamificationCheck.expectPlanMatchesRun(d, "xp-award", now: Self.now)
        #expect(real.plan.changes.count == 12)
        let alice = try #require(real.plan.changes.first { $0.path.description == "userXP/alice" })
        #expect(alice.fields.map { "\($0.field): \($0.before.map(JSONWriter.compact) ?? "-") → \($0.after.map(JSONWriter.compact) ?? "-")" } == [
            "totalXP: 900 → 2600", "currentLevel: 1 → 3", "xpToNextLevel: 100 → 2400",
            #"lastUpdated: "2026-10-01T00:00:00.000Z" → "2026-11-20T12:00:00.000Z""#,
        ])
    }

    @Test func anInvalidXPAccountIsSkippedAndNeverRewritten() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("userXP/u42", #"{"userId": "u42", "totalXP": "12"}"#)
        try d.writeDocument("trades/t9", #"{"creatorId": "u42", "status": "completed", "completedAt": "2026-11-01T00:00:00Z"}"#)
        let mtime = GamificationCheck.mtime(d, "userXP/u42")
        let outcome = try await d.run("xp-award", now: Self.now)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [#"userXP/u42.json: field "totalXP": expected integer, found string "12""#])
        #expect(d.text("userXP/u42") == #"{"userId": "u42", "totalXP": "12"}"# + "\n")
        #expect(GamificationCheck.mtime(d, "userXP/u42") == mtime)
        #expect(d.text("xpTransactions/trade_completed-t9-u42") == nil)
        // Everyone else is awarded as usual.
        #expect(d.ids("xpTransactions").count == 8)
    }

    @Test func anInvalidSourceDocumentIsSkipped() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("trades/t8", #"{"creatorId": 42, "status": "completed"}"#)
        let outcome = try await d.run("xp-award", now: Self.now)
        #expect(outcome.record.warnings == [#"trades/t8.json: field "creatorId": expected string, found integer 42"#])
        #expect(d.text("trades/t8") == #"{"creatorId": 42, "status": "completed"}"# + "\n")
        #expect(d.ids("xpTransactions").count == 8)
    }

    @Test func onInvalidDocumentFailMakesTheRunFailAndCommitNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("userXP/u42", #"{"userId": "u42", "totalXP": "12"}"#)
        try await GamificationCheck.expectFailsOnInvalid(
            d, "xp-award", now: Self.now, message: #"userXP/u42.json: field "totalXP": expected integer, found string "12""#)
    }
}
