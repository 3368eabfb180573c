import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/award-xp.md#rules, written with HearthTesting at T = S = 2026-11-18T12:00:00Z (UTC
/// unless a test names a zone), with the default amounts (daily login 50, profile 100, skill
/// practice 75, 3 practices a day). ana has 950 XP (level 1); ben has no XP document.
@Suite("award-xp")
struct AwardXPTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"
    static let ana = #"{"userId": "ana", "totalXP": 950, "currentLevel": 1, "xpToNextLevel": 50, "lastUpdated": "2026-11-01T08:00:00.000Z", "createdAt": "2026-10-01T08:00:00.000Z"}"#
    static let documents = ["userXP/ana": ana]

    /// Calls award-xp as `uid` with `data` (JSON text).
    static func award(
        _ data: String, as uid: String = "ana", store: InMemoryStore? = nil, now: String = now, timeZone: String = "UTC",
        parameters: [String: String] = [:]
    ) async throws -> (TestJobContext, CallError?) {
        let ctx = try TestJobContext(
            AwardXP.self, store: try store ?? InMemoryStore(documents: documents), now: now, timeZone: try #require(TimeZone(identifier: timeZone)),
            parameters: parameters, call: Call(data: try JSONParser.parse(data), uid: uid))
        return (ctx, try await ctx.runCall())
    }

    /// The app's `XPAwardResult`.
    static func result(_ awarded: Bool, _ previousXP: Int64, _ newXP: Int64, _ previousLevel: Int64, _ newLevel: Int64, leveledUp: Bool = false) -> JSONValue {
        .object(JSONObject([
            ("awarded", .bool(awarded)), ("previousXP", .int(previousXP)), ("newXP", .int(newXP)), ("previousLevel", .int(previousLevel)),
            ("newLevel", .int(newLevel)), ("leveledUp", .bool(leveledUp)),
        ]))
    }

    /// Awards `data` as `uid` over `store` and commits; the answer.
    static func awardAndCommit(_ data: String, as uid: String = "ana", store: InMemoryStore, now: String = now, parameters: [String: String] = [:]) async throws -> JSONValue? {
        let (ctx, error) = try await award(data, as: uid, store: store, now: now, parameters: parameters)
        #expect(error == nil)
        try await ctx.commit()
        return ctx.result
    }

    // MARK: Each source

    @Test func aDailyLoginAwardsDailyLoginXPOnceADayAndCanLevelUp() async throws {
        let (ctx, error) = try await Self.award(#"{"source": "daily_login"}"#)
        #expect(error == nil)
        #expect(ctx.result == Self.result(true, 950, 1000, 1, 2, leveledUp: true))
        try await ctx.commit()
        #expect(ctx.store.documentText("xpTransactions/daily_login-ana-2026-11-18") == """
            {
              "userId": "ana",
              "amount": 50,
              "source": "daily_login",
              "sourceId": "2026-11-18",
              "description": "Daily login",
              "previousTotal": 950,
              "newTotal": 1000,
              "previousLevel": 1,
              "newLevel": 2,
              "createdAt": "\(Self.S)"
            }
            """)
        #expect(ctx.store.documentText("userXP/ana") == """
            {
              "userId": "ana",
              "totalXP": 1000,
              "currentLevel": 2,
              "xpToNextLevel": 1500,
              "lastUpdated": "\(Self.S)",
              "createdAt": "2026-10-01T08:00:00.000Z"
            }
            """)
        #expect(ctx.changeset.messages.isEmpty)
    }

    @Test func aCompletedProfileAwardsOnceEverAndCreatesTheXPDocument() async throws {
        let (ctx, error) = try await Self.award(#"{"source": "profile_completion", "sourceId": "ignored"}"#, as: "ben")
        #expect(error == nil)
        #expect(ctx.result == Self.result(true, 0, 100, 1, 1))
        try await ctx.commit()
        #expect(ctx.store.documentText("xpTransactions/profile_completion-ben") == """
            {
              "userId": "ben",
              "amount": 100,
              "source": "profile_completion",
              "sourceId": "ben",
              "description": "Profile completed",
              "previousTotal": 0,
              "newTotal": 100,
              "previousLevel": 1,
              "newLevel": 1,
              "createdAt": "\(Self.S)"
            }
            """)
        #expect(ctx.store.documentText("userXP/ben") == """
            {
              "userId": "ben",
              "totalXP": 100,
              "currentLevel": 1,
              "xpToNextLevel": 900,
              "lastUpdated": "\(Self.S)",
              "createdAt": "\(Self.S)"
            }
            """)
        // A month later: still not again.
        let (later, _) = try await Self.award(#"{"source": "profile_completion"}"#, as: "ben", store: ctx.store, now: "2026-12-18T12:00:00Z")
        #expect(later.result == Self.result(false, 100, 100, 1, 1))
        #expect(later.changeset.isEmpty)
    }

    @Test func aSkillPracticeAwardsOnceADayPerSkill() async throws {
        let (ctx, error) = try await Self.award(#"{"source": "skill_practice", "sourceId": "swift-ui_2"}"#)
        #expect(error == nil)
        #expect(ctx.result == Self.result(true, 950, 1025, 1, 2, leveledUp: true))
        try await ctx.commit()
        let tx = try #require(ctx.store.object("xpTransactions/skill_practice-ana-2026-11-18-swift-ui_2"))
        #expect(tx["source"] == "skill_practice")
        #expect(tx["sourceId"] == "swift-ui_2")
        #expect(tx["description"] == "Skill practice")
        #expect(tx["amount"] == 75)
        let (again, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "swift-ui_2"}"#, store: ctx.store)
        #expect(again.result == Self.result(false, 1025, 1025, 2, 2))
        #expect(try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "swift-ui_2"}"#, store: ctx.store, now: "2026-11-19T12:00:00Z") == Self.result(true, 1025, 1100, 2, 2))
    }

    @Test func theAmountsAreTheJobsParameters() async throws {
        let parameters = ["dailyLogin": "7", "profileCompletion": "8", "skillPractice": "9"]
        let store = try InMemoryStore()
        #expect(try await Self.awardAndCommit(#"{"source": "daily_login"}"#, as: "ben", store: store, parameters: parameters) == Self.result(true, 0, 7, 1, 1))
        #expect(try await Self.awardAndCommit(#"{"source": "profile_completion"}"#, as: "ben", store: store, parameters: parameters) == Self.result(true, 7, 15, 1, 1))
        #expect(try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "go"}"#, as: "ben", store: store, parameters: parameters) == Self.result(true, 15, 24, 1, 1))
    }

    // MARK: Not awarded

    @Test func theDaysFourthSkillIsNotAwardedAndTheNextDaysIs() async throws {
        let store = try InMemoryStore(documents: Self.documents)
        for skill in ["a", "b", "c"] {
            _ = try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "\#(skill)"}"#, store: store)
        }
        // Other users' practices and yesterday's do not count.
        try store.write("xpTransactions/skill_practice-ann-2026-11-18-d", #"{"userId": "ann"}"#)
        try store.write("xpTransactions/skill_practice-ana-2026-11-17-z", #"{"userId": "ana"}"#)
        let (fourth, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "d"}"#, store: store)
        #expect(fourth.result == Self.result(false, 1175, 1175, 2, 2))
        #expect(fourth.changeset.isEmpty)
        #expect(try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "d"}"#, store: store, now: "2026-11-19T00:00:00Z") == Self.result(true, 1175, 1250, 2, 2))
        // A daily login is not a skill practice.
        #expect(try await Self.awardAndCommit(#"{"source": "daily_login"}"#, store: store)?.objectValue?["awarded"] == true)
    }

    @Test func practicePerDaySetsTheDaysLimit() async throws {
        let store = try InMemoryStore(documents: Self.documents)
        _ = try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "a"}"#, store: store, parameters: ["practicePerDay": "1"])
        let (second, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "b"}"#, store: store, parameters: ["practicePerDay": "1"])
        #expect(second.result?.objectValue?["awarded"] == false)
        let (none, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "a"}"#, as: "ben", parameters: ["practicePerDay": "0"])
        #expect(none.result == Self.result(false, 0, 0, 1, 1))
    }

    @Test func aTransactionAtTheAwardsIdWhateverItHoldsMeansNotAwarded() async throws {
        let store = try InMemoryStore(documents: Self.documents.merging([
            "xpTransactions/daily_login-ana-2026-11-18": #"{"note": "written by hand"}"#,
            "xpTransactions/profile_completion-ana": "not json",
        ]) { $1 })
        let (login, _) = try await Self.award(#"{"source": "daily_login"}"#, store: store)
        #expect(login.result == Self.result(false, 950, 950, 1, 1))
        let (profile, _) = try await Self.award(#"{"source": "profile_completion"}"#, store: store)
        #expect(profile.result == Self.result(false, 950, 950, 1, 1))
        #expect(profile.changeset.isEmpty)
    }

    // MARK: The day, in the job's zone

    @Test func theDayIsTsDateInTheJobsZone() async throws {
        // 23:30 UTC on the 18th is already the 19th in Auckland (UTC+13), still the 18th in UTC.
        let (auckland, _) = try await Self.award(#"{"source": "daily_login"}"#, now: "2026-11-18T23:30:00Z", timeZone: "Pacific/Auckland")
        #expect(auckland.changeset.entries.map(\.path.description) == ["xpTransactions/daily_login-ana-2026-11-19", "userXP/ana"])
        #expect(auckland.changeset.entries.first?.after?["sourceId"] == "2026-11-19")
        // 07:30 UTC on the 19th is still the 18th in Los Angeles (UTC−8).
        let (la, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "x"}"#, now: "2026-11-19T07:30:00Z", timeZone: "America/Los_Angeles")
        #expect(la.changeset.entries.first?.path.description == "xpTransactions/skill_practice-ana-2026-11-18-x")
    }

    // MARK: Refused

    @Test func aSourceThisJobDoesNotAwardOrASkillPracticeWithoutASkillIsAnInvalidRequest() async throws {
        for data in [
            "null", #""daily_login""#, "[]", "{}", #"{"source": null}"#, #"{"source": 1}"#, #"{"source": "trade_completed"}"#, #"{"source": "Daily_Login"}"#,
            #"{"source": "skill_practice"}"#, #"{"source": "skill_practice", "sourceId": null}"#, #"{"source": "skill_practice", "sourceId": ""}"#,
            #"{"source": "skill_practice", "sourceId": 42}"#, #"{"source": "skill_practice", "sourceId": "a/b"}"#,
            #"{"source": "skill_practice", "sourceId": "\#(String(repeating: "s", count: 65))"}"#,
        ] {
            let (ctx, error) = try await Self.award(data)
            #expect(error?.code == .invalidArgument, "\(data)")
            #expect(error?.reason == "invalid_request", "\(data)")
            #expect(ctx.changeset.isEmpty)
        }
        let (longest, error) = try await Self.award(#"{"source": "skill_practice", "sourceId": "\#(String(repeating: "s", count: 64))"}"#)
        #expect(error == nil)
        #expect(longest.result?.objectValue?["awarded"] == true)
    }

    @Test func anInvalidXPDocumentIsAFailedPreconditionAndNeverRewritten() async throws {
        let (ctx, error) = try await Self.award(#"{"source": "daily_login"}"#, store: try InMemoryStore(documents: ["userXP/ana": #"{"totalXP": "950"}"#]))
        #expect(error?.code == .failedPrecondition)
        #expect(error?.reason == "invalid_document")
        #expect(ctx.changeset.isEmpty)
        #expect(ctx.warnings == [#"userXP/ana.json: field "totalXP": expected integer, found string "950""#])
    }

    // MARK: What a decision rests on

    @Test func eachDecisionRestsOnTheAwardsIdTheDaysPracticesAndForANoTheFiguresAnswered() async throws {
        func dependencies(_ run: TestJobContext) -> [String] { GiftSettleDependencyTests.dependencies(run) }
        let store = try InMemoryStore(documents: Self.documents)
        let (login, _) = try await Self.award(#"{"source": "daily_login"}"#, store: store)
        #expect(dependencies(login) == ["xpTransactions/daily_login-ana-2026-11-18@absent"])
        try await login.commit()
        let (again, _) = try await Self.award(#"{"source": "daily_login"}"#, store: store)
        #expect(dependencies(again) == ["xpTransactions/daily_login-ana-2026-11-18@read", "userXP/ana@read"])
        let (newcomer, _) = try await Self.award(#"{"source": "profile_completion"}"#, as: "ben", store: store)
        #expect(dependencies(newcomer) == ["xpTransactions/profile_completion-ben@absent"])

        for skill in ["a", "b"] { _ = try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "\#(skill)"}"#, store: store) }
        let (third, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "c"}"#, store: store)
        let day = "xpTransactions/skill_practice-ana-2026-11-18"
        #expect(dependencies(third) == ["\(day)-c@absent", "\(day)-a@read", "\(day)-b@read"])
        try await third.commit()
        let (fourth, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "d"}"#, store: store)
        #expect(dependencies(fourth) == ["\(day)-d@absent", "\(day)-a@read", "\(day)-b@read", "\(day)-c@read", "userXP/ana@read"])
    }

    @Test func twoCallsForTheDaysLastPracticeCannotBothAward() async throws {
        let store = try InMemoryStore(documents: Self.documents)
        for skill in ["a", "b"] { _ = try await Self.awardAndCommit(#"{"source": "skill_practice", "sourceId": "\#(skill)"}"#, store: store) }
        let (first, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "c"}"#, store: store)
        let (second, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "d"}"#, store: store)
        #expect(first.result?.objectValue?["awarded"] == true)
        #expect(second.result?.objectValue?["awarded"] == true)
        try await first.commit()
        // Both write userXP/ana: the second commit is a conflict, and decided again it is a no.
        await #expect(throws: TestCommitConflict.self) { try await second.commit() }
        let (again, _) = try await Self.award(#"{"source": "skill_practice", "sourceId": "d"}"#, store: store)
        #expect(again.result == Self.result(false, 1175, 1175, 2, 2))
        #expect(store.ids("xpTransactions").count == 3)
    }
}
