import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing

/// docs/jobs/achievement-unlock.md#when-an-achievement-unlocks at T = S = 2026-11-20 12:00Z.
@Suite("achievement-unlock")
struct AchievementUnlockTests {
    static let now = "2026-11-20T12:00:00Z"
    static let karmaWarning = #"achievements/a3-karma.json: unknown category "karma" (known: trades, challenges, collaborations, streaks, xp, level, gifts, points_gifted); achievement skipped"#

    static func achievement(_ name: String, icon: String, xpReward: Int, category: String, requirement: Int) -> String {
        """
        {
          "name": "\(name)",
          "description": "Reach \(requirement) in \(category)",
          "icon": "\(icon)",
          "xpReward": \(xpReward),
          "category": "\(category)",
          "tier": "bronze",
          "requirement": \(requirement)
        }
        """
    }

    static func userAchievement(_ user: String, _ id: String, name: String, icon: String, progress: Int) -> String {
        """
        {
          "userId": "\(user)",
          "achievementId": "\(id)",
          "achievementName": "\(name)",
          "achievementIcon": "\(icon)",
          "progress": \(progress),
          "isUnlocked": true,
          "unlockedAt": "2026-11-20T12:00:00.000Z",
          "createdAt": "2026-11-20T12:00:00.000Z"
        }
        """
    }

    static func notification(_ user: String, _ id: String, name: String) -> String {
        """
        {
          "userId": "\(user)",
          "type": "achievement_unlocked",
          "title": "Achievement unlocked!",
          "message": "You unlocked \(name)",
          "read": false,
          "createdAt": "2026-11-20T12:00:00.000Z",
          "actionUrl": "/achievements/\(id)"
        }
        """
    }

    /// alice (500 XP, one completed trade): "First Trade" (+600 XP) takes her to 1100 XP,
    /// level 2, which unlocks "Rising Star" (xp ≥ 1000, +100) and "Apprentice" (level ≥ 2,
    /// no XP) in a second pass. bob already has "First Trade" under a random id.
    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("achievements/a1-first-trade", Self.achievement("First Trade", icon: "star.fill", xpReward: 600, category: "trades", requirement: 1))
        try d.writeDocument("achievements/a2-xp-1000", Self.achievement("Rising Star", icon: "flame.fill", xpReward: 100, category: "xp", requirement: 1000))
        try d.writeDocument("achievements/a3-karma", Self.achievement("Good Karma", icon: "heart.fill", xpReward: 50, category: "karma", requirement: 1))
        try d.writeDocument("achievements/a4-level-2", Self.achievement("Apprentice", icon: "trophy.fill", xpReward: 0, category: "level", requirement: 2))
        try d.writeDocument("users/alice", """
            {
              "name": "Alice",
              "username": "alice",
              "fcmTokens": ["fcm-alice-phone-0001"],
              "achievements": []
            }
            """)
        try d.writeDocument("users/bob", """
            {
              "name": "Bob",
              "username": "bob"
            }
            """)
        try d.writeDocument("userXP/alice", """
            {
              "userId": "alice",
              "totalXP": 500,
              "currentLevel": 1,
              "xpToNextLevel": 500,
              "lastUpdated": "2026-10-01T00:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        try d.writeDocument("trades/t1", """
            {
              "creatorId": "alice",
              "participantId": "bob",
              "status": "completed"
            }
            """)
        try d.writeDocument("userAchievements/Rnd8xQ2vLk", """
            {
              "userId": "bob",
              "achievementId": "a1-first-trade",
              "achievementName": "First Trade",
              "achievementIcon": "star.fill",
              "progress": 1,
              "isUnlocked": true,
              "unlockedAt": "2026-11-02T10:00:00.000Z",
              "createdAt": "2026-11-02T10:00:00.000Z"
            }
            """)
        return d
    }

    @Test func xpFromOneUnlockUnlocksAnXPAchievementInTheSameRun() async throws {
        let d = try makeData()
        defer { d.remove() }
        let bob = try #require(d.text("users/bob"))
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        #expect(outcome.error == nil)
        #expect(outcome.plan.summaryLine == "Applied: 8 to create, 2 to update, 0 to delete; 3 pushes, 3 webhooks.")
        #expect(d.ids("userAchievements") == ["Rnd8xQ2vLk", "alice_a1-first-trade", "alice_a2-xp-1000", "alice_a4-level-2"])
        #expect(d.documentText("userAchievements/alice_a1-first-trade") == Self.userAchievement("alice", "a1-first-trade", name: "First Trade", icon: "star.fill", progress: 1))
        #expect(d.documentText("userAchievements/alice_a2-xp-1000") == Self.userAchievement("alice", "a2-xp-1000", name: "Rising Star", icon: "flame.fill", progress: 1000))
        #expect(d.documentText("userAchievements/alice_a4-level-2") == Self.userAchievement("alice", "a4-level-2", name: "Apprentice", icon: "trophy.fill", progress: 2))
        // XP: 500 → 1100 (level 1 → 2) → 1200; "Apprentice" has xpReward 0: no transaction.
        #expect(d.ids("xpTransactions") == ["achievement-a1-first-trade-alice", "achievement-a2-xp-1000-alice"])
        #expect(d.documentText("xpTransactions/achievement-a1-first-trade-alice") == """
            {
              "userId": "alice",
              "amount": 600,
              "source": "achievement_unlocked",
              "sourceId": "a1-first-trade",
              "description": "Unlocked: First Trade",
              "previousTotal": 500,
              "newTotal": 1100,
              "previousLevel": 1,
              "newLevel": 2,
              "createdAt": "2026-11-20T12:00:00.000Z"
            }
            """)
        #expect(d.documentText("xpTransactions/achievement-a2-xp-1000-alice") == """
            {
              "userId": "alice",
              "amount": 100,
              "source": "achievement_unlocked",
              "sourceId": "a2-xp-1000",
              "description": "Unlocked: Rising Star",
              "previousTotal": 1100,
              "newTotal": 1200,
              "previousLevel": 2,
              "newLevel": 2,
              "createdAt": "2026-11-20T12:00:00.000Z"
            }
            """)
        #expect(d.documentText("userXP/alice") == """
            {
              "userId": "alice",
              "totalXP": 1200,
              "currentLevel": 2,
              "xpToNextLevel": 1300,
              "lastUpdated": "2026-11-20T12:00:00.000Z",
              "createdAt": "2026-01-01T00:00:00.000Z"
            }
            """)
        #expect(d.documentText("users/alice") == """
            {
              "name": "Alice",
              "username": "alice",
              "fcmTokens": [
                "fcm-alice-phone-0001"
              ],
              "achievements": [
                "a1-first-trade",
                "a2-xp-1000",
                "a4-level-2"
              ]
            }
            """)
        #expect(d.ids("notifications") == ["achievement-a1-first-trade-alice", "achievement-a2-xp-1000-alice", "achievement-a4-level-2-alice"])
        #expect(d.documentText("notifications/achievement-a1-first-trade-alice") == Self.notification("alice", "a1-first-trade", name: "First Trade"))
        #expect(d.documentText("notifications/achievement-a2-xp-1000-alice") == Self.notification("alice", "a2-xp-1000", name: "Rising Star"))
        #expect(d.documentText("notifications/achievement-a4-level-2-alice") == Self.notification("alice", "a4-level-2", name: "Apprentice"))
        // bob already has "First Trade" under a random id: nothing for him.
        #expect(d.text("users/bob") == bob)
        #expect(d.text("userXP/bob") == nil)
    }

    @Test func eachUnlockQueuesItsPushAndEvent() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        #expect(outcome.plan.messages.map(\.id) == [
            "push-achievement-a1-first-trade-alice", "achievement.unlocked-a1-first-trade-alice",
            "push-achievement-a2-xp-1000-alice", "achievement.unlocked-a2-xp-1000-alice",
            "push-achievement-a4-level-2-alice", "achievement.unlocked-a4-level-2-alice",
        ])
        #expect(outcome.plan.messages[0] == OutboxMessage(
            id: "push-achievement-a1-first-trade-alice", kind: .push, recipient: "alice", title: "Achievement unlocked!",
            payload: JSONObject([
                ("userId", "alice"), ("tokens", ["fcm-alice-phone-0001"]), ("title", "Achievement unlocked!"), ("body", "You unlocked First Trade"),
                ("data", ["notificationId": "achievement-a1-first-trade-alice", "type": "achievement_unlocked", "actionUrl": "/achievements/a1-first-trade"]),
            ])))
        #expect(outcome.plan.messages[1] == .event("achievement.unlocked", id: "achievement.unlocked-a1-first-trade-alice", data: JSONObject([
            ("userId", "alice"), ("achievementId", "a1-first-trade"), ("achievementName", "First Trade"), ("category", "trades"),
            ("xpReward", 600), ("unlockedAt", "2026-11-20T12:00:00.000Z"),
        ])))
        #expect(GamificationCheck.pendingOutbox(d).count == 6)
    }

    @Test func anUnknownCategoryIsWarnedOnceAndSkipped() async throws {
        let d = try makeData()
        defer { d.remove() }
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        // Two users, one warning; nobody gets "Good Karma" although both have metric ≥ 1 elsewhere.
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [Self.karmaWarning])
        #expect(d.text("userAchievements/alice_a3-karma") == nil)
        #expect(d.text("notifications/achievement-a3-karma-alice") == nil)
    }

    @Test func aUserWhoAlreadyHasTheAchievementUnderARandomIdIsNotReawarded() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("achievements/a1-first-trade", Self.achievement("First Trade", icon: "star.fill", xpReward: 600, category: "trades", requirement: 1))
        let bob = """
            {
              "name": "Bob",
              "achievements": [
                "a1-first-trade"
              ]
            }
            """
        try d.writeDocument("users/bob", bob)
        try d.writeDocument("trades/t1", #"{"creatorId": "alice", "participantId": "bob", "status": "completed"}"#)
        try d.writeDocument("userAchievements/Rnd8xQ2vLk", #"{"userId": "bob", "achievementId": "a1-first-trade", "progress": 1, "isUnlocked": true}"#)
        // A locked progress record under another random id changes nothing.
        try d.writeDocument("userAchievements/Zz01", #"{"userId": "bob", "achievementId": "a1-first-trade", "progress": 0, "isUnlocked": false}"#)
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        #expect(outcome.plan.summaryLine == "No changes.")
        #expect(d.documentText("users/bob") == bob)
        #expect(d.ids("userAchievements") == ["Rnd8xQ2vLk", "Zz01"])
        #expect(d.ids("xpTransactions") == [])
    }

    @Test func everyCategorysMetricAtItsRequirementUnlocksAndOneAboveDoesNot() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        for (id, category, requirement) in [
            ("c-trades-2", "trades", 2), ("c-trades-3", "trades", 3), ("c-challenges-2", "challenges", 2), ("c-challenges-3", "challenges", 3),
            ("c-collab-2", "collaborations", 2), ("c-collab-3", "collaborations", 3), ("c-streak-14", "streaks", 14), ("c-streak-15", "streaks", 15),
            ("c-gifts-7", "gifts", 7), ("c-gifts-8", "gifts", 8), ("c-pg-250", "points_gifted", 250), ("c-pg-251", "points_gifted", 251),
            ("c-level-1", "level", 1), ("c-level-2", "level", 2), ("c-xp-0", "xp", 0), ("c-xp-1", "xp", 1),
        ] {
            try d.writeDocument("achievements/\(id)", Self.achievement(id, icon: "star.fill", xpReward: 0, category: category, requirement: requirement))
        }
        try d.writeDocument("users/carol", """
            {
              "name": "Carol",
              "giftsGiven": 7,
              "totalPointsGifted": 250
            }
            """)
        // trades: 2 (one as participant, one as creator; cancelled ones do not count)
        try d.writeDocument("trades/t1", #"{"creatorId": "dave", "participantId": "carol", "status": "completed"}"#)
        try d.writeDocument("trades/t2", #"{"creatorId": "carol", "participantId": null, "status": "completed"}"#)
        try d.writeDocument("trades/t3", #"{"creatorId": "carol", "participantId": "dave", "status": "cancelled"}"#)
        // challenges: 2
        try d.writeDocument("userChallenges/uc1", #"{"userId": "carol", "challengeId": "ch-1", "status": "completed"}"#)
        try d.writeDocument("userChallenges/uc2", #"{"userId": "carol", "challengeId": "ch-2", "status": "completed"}"#)
        try d.writeDocument("userChallenges/uc3", #"{"userId": "carol", "challengeId": "ch-3", "status": "in_progress"}"#)
        try d.writeDocument("userChallenges/uc4", #"{"userId": "dave", "challengeId": "ch-1", "status": "completed"}"#)
        // collaborations: 2 (creator of one, participant of another)
        try d.writeDocument("collaborations/co1", #"{"creatorId": "carol", "participantIds": ["dave"], "status": "completed"}"#)
        try d.writeDocument("collaborations/co2", #"{"creatorId": "dave", "participantIds": ["carol", "erin"], "status": "completed"}"#)
        try d.writeDocument("collaborations/co3", #"{"creatorId": "carol", "participantIds": [], "status": "active"}"#)
        // streaks: the largest longestStreak or currentStreak: 14
        try d.writeDocument("streaks/s1", #"{"userId": "carol", "type": "login", "currentStreak": 3, "longestStreak": 12}"#)
        try d.writeDocument("streaks/s2", #"{"userId": "carol", "type": "challenge", "currentStreak": 14, "longestStreak": 5}"#)
        try d.writeDocument("streaks/s3", #"{"userId": "dave", "type": "login", "currentStreak": 40, "longestStreak": 40}"#)
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        #expect(outcome.error == nil)
        // No userXP: 0 XP, level 1.
        #expect(d.documentText("users/carol") == """
            {
              "name": "Carol",
              "giftsGiven": 7,
              "totalPointsGifted": 250,
              "achievements": [
                "c-challenges-2",
                "c-collab-2",
                "c-gifts-7",
                "c-level-1",
                "c-pg-250",
                "c-streak-14",
                "c-trades-2",
                "c-xp-0"
              ]
            }
            """)
        #expect(d.ids("userAchievements") == ["carol_c-challenges-2", "carol_c-collab-2", "carol_c-gifts-7", "carol_c-level-1", "carol_c-pg-250", "carol_c-streak-14", "carol_c-trades-2", "carol_c-xp-0"])
        // xpReward 0 everywhere: no XP documents at all.
        #expect(d.ids("xpTransactions") == [])
        #expect(d.ids("userXP") == [])
    }

    @Test func theAppsLockedProgressDocumentUnderTheDeterministicIdIsCompleted() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("userAchievements/alice_a1-first-trade", """
            {
              "userId": "alice",
              "achievementId": "a1-first-trade",
              "progress": 0,
              "isUnlocked": false,
              "createdAt": "2026-11-01T00:00:00.000Z"
            }
            """)
        _ = try await d.run("achievement-unlock", now: Self.now)
        #expect(d.documentText("userAchievements/alice_a1-first-trade") == """
            {
              "userId": "alice",
              "achievementId": "a1-first-trade",
              "progress": 1,
              "isUnlocked": true,
              "createdAt": "2026-11-01T00:00:00.000Z",
              "achievementName": "First Trade",
              "achievementIcon": "star.fill",
              "unlockedAt": "2026-11-20T12:00:00.000Z"
            }
            """)
    }

    @Test func refusesToStartWhenTheConfigLeavesOutItsNotificationType() async throws {
        let d = try makeData()
        defer { d.remove() }
        let before = GamificationCheck.snapshot(d)
        do {
            _ = try await d.run("achievement-unlock", now: Self.now, config: "[notifications]\ntypes = [\"gift_received\", \"friend_request\"]\n")
            Issue.record("the run started")
        } catch let error as JobSetupError {
            #expect(error.message == #"achievement-unlock writes notifications of type "achievement_unlocked", but [notifications].types ("gift_received", "friend_request") does not list it. The apps cannot decode a notification type they do not know, and one unknown type breaks their whole notification list. Once the apps handle it, add "achievement_unlocked" to types under [notifications] in the config; otherwise set enabled = false under [jobs.achievement-unlock]."#)
        }
        #expect(GamificationCheck.snapshot(d) == before)
    }

    @Test func aSecondRunChangesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("achievement-unlock", now: Self.now)
        let first = GamificationCheck.snapshot(d)
        let again = try await d.run("achievement-unlock", now: "2026-11-20T12:10:00Z")
        #expect(again.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.snapshot(d) == first)
    }

    @Test func theDryRunPlanListsExactlyWhatTheRealRunWrites() async throws {
        let d = try makeData()
        defer { d.remove() }
        let real = try await GamificationCheck.expectPlanMatchesRun(d, "achievement-unlock", now: Self.now)
        #expect(real.plan.changes.map { "\($0.action.rawValue) \($0.path)" } == [
            "create notifications/achievement-a1-first-trade-alice", "create notifications/achievement-a2-xp-1000-alice",
            "create notifications/achievement-a4-level-2-alice",
            "create userAchievements/alice_a1-first-trade", "create userAchievements/alice_a2-xp-1000", "create userAchievements/alice_a4-level-2",
            "update userXP/alice", "update users/alice",
            "create xpTransactions/achievement-a1-first-trade-alice", "create xpTransactions/achievement-a2-xp-1000-alice",
        ])
    }

    @Test func aUserWithAWrongFieldTypeIsSkippedAndNeverRewritten() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("users/u42", #"{"name": "Zed", "giftsGiven": "12"}"#)
        try d.writeDocument("achievements/a5-gifts", Self.achievement("Giver", icon: "gift.fill", xpReward: 10, category: "gifts", requirement: 0))
        let mtime = GamificationCheck.mtime(d, "users/u42")
        let outcome = try await d.run("achievement-unlock", now: Self.now)
        #expect(outcome.record.warnings == [#"users/u42.json: field "giftsGiven": expected integer, found string "12""#, Self.karmaWarning])
        #expect(d.text("users/u42") == #"{"name": "Zed", "giftsGiven": "12"}"# + "\n")
        #expect(GamificationCheck.mtime(d, "users/u42") == mtime)
        #expect(d.ids("userAchievements").filter { $0.hasPrefix("u42_") } == [])
        // The valid users still get the new achievement.
        #expect(d.text("userAchievements/bob_a5-gifts") != nil)
    }

    @Test func onInvalidDocumentFailMakesTheRunFailAndCommitNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("users/u42", #"{"name": "Zed", "giftsGiven": "12"}"#)
        try await GamificationCheck.expectFailsOnInvalid(
            d, "achievement-unlock", now: Self.now, message: #"users/u42.json: field "giftsGiven": expected integer, found string "12""#)
    }
}
