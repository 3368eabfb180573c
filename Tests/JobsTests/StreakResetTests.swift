import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing
import HearthTestSupport
import HearthTesting

/// docs/jobs/streak-reset.md#rules. The job's zone is UTC (the config default) unless a test says otherwise.
@Suite("streak-reset")
struct StreakResetTests {
    static let now = "2026-11-18T12:00:00Z"

    static func streak(_ user: String, current: Int, longest: Int, active: Bool = true, freezes: Int, last: String, extra: String = "") -> String {
        """
        {
          "userId": "\(user)",
          "type": "login",
          "currentStreak": \(current),
          "longestStreak": \(longest),
          "isActive": \(active),
          "freezeCount": \(freezes),
          "lastActivityDate": "\(last)",\(extra)
          "createdAt": "2026-09-01T00:00:00.000Z"
        }
        """
    }

    /// Written with HearthTesting (docs/jobs/README.md#writing-a-job): no files.
    @Test func usersInKiritimatiAndPagoPagoAreJudgedOnTheirOwnDatesAtTheSameT() async throws {
        let d = try InMemoryStore()
        // T = 2026-11-18 12:00Z is Nov 19 02:00 in Kiritimati (UTC+14) and Nov 18 01:00 in
        // Pago Pago (UTC−11).
        try d.write("users/kiri", #"{"name": "Kiri", "timeZone": "Pacific/Kiritimati"}"#)
        try d.write("users/kiri2", #"{"name": "Kiri Two", "timeZone": "Pacific/Kiritimati"}"#)
        try d.write("users/pago", #"{"name": "Pago", "timeZone": "Pacific/Pago_Pago"}"#)
        try d.write("users/utc", #"{"name": "No zone"}"#)
        try d.write("users/mars", #"{"name": "Bad zone", "timeZone": "Mars/Olympus_Mons"}"#)
        // 10:30Z on Nov 17 = Nov 18 00:30 in Kiritimati: active yesterday (local), kept.
        let kiri = Self.streak("kiri", current: 9, longest: 20, freezes: 0, last: "2026-11-17T10:30:00.000Z")
        try d.write("streaks/kiri_login", kiri)
        // 09:30Z on Nov 17 = Nov 17 23:30 in Kiritimati: Nov 18 was missed there (not in UTC).
        try d.write("streaks/kiri2_login", Self.streak("kiri2", current: 4, longest: 30, freezes: 0, last: "2026-11-17T09:30:00.000Z"))
        // 10:30Z on Nov 17 = Nov 16 23:30 in Pago Pago: Nov 17 was missed there (not in UTC).
        try d.write("streaks/pago_login", Self.streak("pago", current: 25, longest: 20, freezes: 0, last: "2026-11-17T10:30:00.000Z"))
        // No zone, or not an IANA name: the job's zone (UTC): Nov 17, kept.
        let utc = Self.streak("utc", current: 3, longest: 3, freezes: 0, last: "2026-11-17T10:30:00.000Z")
        try d.write("streaks/utc_login", utc)
        let mars = Self.streak("mars", current: 3, longest: 3, freezes: 0, last: "2026-11-17T00:00:00.000Z")
        try d.write("streaks/mars_login", mars)

        let ctx = try TestJobContext(StreakReset.self, store: d, now: Self.now)
        try await ctx.run()  // no error
        #expect(ctx.warnings.isEmpty)  // succeeded (not with warnings)
        try await ctx.commit()
        #expect(ctx.summaryLine == "Applied: 0 to create, 2 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.documentText("streaks/kiri_login") == kiri)
        #expect(d.documentText("streaks/utc_login") == utc)
        #expect(d.documentText("streaks/mars_login") == mars)
        #expect(d.documentText("streaks/kiri2_login") == """
            {
              "userId": "kiri2",
              "type": "login",
              "currentStreak": 0,
              "longestStreak": 30,
              "isActive": false,
              "freezeCount": 0,
              "lastActivityDate": "2026-11-17T09:30:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "resetAt": "2026-11-18T12:00:00.000Z"
            }
            """)
        #expect(d.documentText("streaks/pago_login") == """
            {
              "userId": "pago",
              "type": "login",
              "currentStreak": 0,
              "longestStreak": 25,
              "isActive": false,
              "freezeCount": 0,
              "lastActivityDate": "2026-11-17T10:30:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "resetAt": "2026-11-18T12:00:00.000Z"
            }
            """)
    }

    /// Job zone UTC, T = Wednesday 2026-11-18: last activity Sunday Nov 15, so Monday and
    /// Tuesday were missed (m = 2).
    func makeFreezeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("streaks/f1", Self.streak("u1", current: 7, longest: 7, freezes: 1, last: "2026-11-15T20:00:00.000Z"))
        try d.writeDocument("streaks/f2", Self.streak("u2", current: 5, longest: 9, freezes: 2, last: "2026-11-15T20:00:00.000Z"))
        try d.writeDocument("streaks/f3", Self.streak("u3", current: 12, longest: 12, freezes: 3, last: "2026-11-15T20:00:00.000Z"))
        // Frozen through yesterday already: covered.
        try d.writeDocument("streaks/fz", Self.streak("u4", current: 2, longest: 8, freezes: 0, last: "2026-11-10T00:00:00.000Z", extra: "\n  \"frozenThrough\": \"2026-11-17\","))
        // Inactive: never judged.
        try d.writeDocument("streaks/off", Self.streak("u5", current: 0, longest: 8, active: false, freezes: 0, last: "2026-10-01T00:00:00.000Z"))
        try d.writeDocument("streaks/nodate", #"{"userId": "u6", "type": "login", "currentStreak": 1, "longestStreak": 1, "isActive": true}"#)
        return d
    }

    @Test func twoMissedDaysWithOneFreezeResetWithFreezesKeptAndWithThreeFreezesSurviveWithOneLeft() async throws {
        let d = try makeFreezeData()
        defer { d.remove() }
        let fz = d.text("streaks/fz")
        let off = d.text("streaks/off")
        let outcome = try await d.run("streak-reset", now: Self.now)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == ["streaks/nodate.json: active streak without lastActivityDate; skipped"])
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 3 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.documentText("streaks/f1") == """
            {
              "userId": "u1",
              "type": "login",
              "currentStreak": 0,
              "longestStreak": 7,
              "isActive": false,
              "freezeCount": 1,
              "lastActivityDate": "2026-11-15T20:00:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "resetAt": "2026-11-18T12:00:00.000Z"
            }
            """)
        // Exactly as many freezes as missed days: survives with none left.
        #expect(d.documentText("streaks/f2") == """
            {
              "userId": "u2",
              "type": "login",
              "currentStreak": 5,
              "longestStreak": 9,
              "isActive": true,
              "freezeCount": 0,
              "lastActivityDate": "2026-11-15T20:00:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "frozenThrough": "2026-11-17"
            }
            """)
        #expect(d.documentText("streaks/f3") == """
            {
              "userId": "u3",
              "type": "login",
              "currentStreak": 12,
              "longestStreak": 12,
              "isActive": true,
              "freezeCount": 1,
              "lastActivityDate": "2026-11-15T20:00:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "frozenThrough": "2026-11-17"
            }
            """)
        #expect(d.text("streaks/fz") == fz)
        #expect(d.text("streaks/off") == off)
    }

    @Test func aSecondRunTheSameDayChangesNothingAndTheNextDaySpendsTheNextFreeze() async throws {
        let d = try makeFreezeData()
        defer { d.remove() }
        _ = try await d.run("streak-reset", now: Self.now)
        let first = GamificationCheck.snapshot(d)
        let again = try await d.run("streak-reset", now: "2026-11-18T23:05:00Z")
        #expect(again.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.snapshot(d) == first)

        let tomorrow = try await d.run("streak-reset", now: "2026-11-19T00:05:00Z")
        #expect(tomorrow.plan.summaryLine == "Applied: 0 to create, 3 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.documentText("streaks/f3") == """
            {
              "userId": "u3",
              "type": "login",
              "currentStreak": 12,
              "longestStreak": 12,
              "isActive": true,
              "freezeCount": 0,
              "lastActivityDate": "2026-11-15T20:00:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "frozenThrough": "2026-11-18"
            }
            """)
        // f2 had no freeze left; fz was frozen through Nov 17 and had none either.
        #expect(d.documentText("streaks/f2") == """
            {
              "userId": "u2",
              "type": "login",
              "currentStreak": 0,
              "longestStreak": 9,
              "isActive": false,
              "freezeCount": 0,
              "lastActivityDate": "2026-11-15T20:00:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "frozenThrough": "2026-11-17",
              "resetAt": "2026-11-19T00:05:00.000Z"
            }
            """)
        #expect(try d.object("streaks/fz")?["isActive"] == .bool(false))
    }

    @Test func theSpringForwardNightInNewYork() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/ny", #"{"name": "NY", "timeZone": "America/New_York"}"#)
        // DST starts 2026-03-08 02:00 EST. T = 2026-03-09 04:30Z = Mar 9 00:30 EDT (with the
        // winter offset it would still be Mar 8 23:30, and only 24 hours passed).
        // a: Mar 7 23:30 EST → Mar 8 missed → reset. b: Mar 8 00:30 EST → kept.
        try d.writeDocument("streaks/ny_a", Self.streak("ny", current: 6, longest: 6, freezes: 0, last: "2026-03-08T04:30:00.000Z"))
        let b = Self.streak("ny", current: 6, longest: 6, freezes: 0, last: "2026-03-08T05:30:00.000Z")
        try d.writeDocument("streaks/ny_b", b)
        let outcome = try await d.run("streak-reset", now: "2026-03-09T04:30:00Z")
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.documentText("streaks/ny_a") == """
            {
              "userId": "ny",
              "type": "login",
              "currentStreak": 0,
              "longestStreak": 6,
              "isActive": false,
              "freezeCount": 0,
              "lastActivityDate": "2026-03-08T04:30:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "resetAt": "2026-03-09T04:30:00.000Z"
            }
            """)
        #expect(d.documentText("streaks/ny_b") == b)
    }

    @Test func theFallBackNightInNewYork() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/ny", #"{"name": "NY", "timeZone": "America/New_York"}"#)
        // DST ends 2026-11-01 02:00 EDT. T = 2026-11-02 04:30Z = Nov 1 23:30 EST (with the
        // summer offset it would be Nov 2 00:30).
        // c: Oct 31 00:30 EDT → kept (Nov 1 is today). d: Oct 30 23:30 EDT → Oct 31 missed.
        let c = Self.streak("ny", current: 6, longest: 6, freezes: 0, last: "2026-10-31T04:30:00.000Z")
        try d.writeDocument("streaks/ny_c", c)
        try d.writeDocument("streaks/ny_d", Self.streak("ny", current: 6, longest: 10, freezes: 1, last: "2026-10-31T03:30:00.000Z"))
        let outcome = try await d.run("streak-reset", now: "2026-11-02T04:30:00Z")
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.documentText("streaks/ny_c") == c)
        #expect(d.documentText("streaks/ny_d") == """
            {
              "userId": "ny",
              "type": "login",
              "currentStreak": 6,
              "longestStreak": 10,
              "isActive": true,
              "freezeCount": 0,
              "lastActivityDate": "2026-10-31T03:30:00.000Z",
              "createdAt": "2026-09-01T00:00:00.000Z",
              "frozenThrough": "2026-10-31"
            }
            """)
    }

    @Test func theRuleOnDates() {
        let today = LocalDate(year: 2026, month: 11, day: 18)
        func judge(_ last: Int, frozen: Int? = nil, freezes: Int64) -> StreakReset.Outcome {
            StreakReset.judge(today: today, lastActivity: today.adding(days: -last), frozenThrough: frozen.map { today.adding(days: -$0) },
                              freezeCount: freezes, currentStreak: 4, longestStreak: 3)
        }
        #expect(judge(0, freezes: 0) == .nothing)
        #expect(judge(1, freezes: 0) == .nothing)
        #expect(judge(2, freezes: 0) == .reset(longestStreak: 4))
        #expect(judge(2, freezes: 1) == .frozen(freezeCount: 0, frozenThrough: LocalDate(year: 2026, month: 11, day: 17)))
        #expect(judge(3, freezes: 1) == .reset(longestStreak: 4))
        #expect(judge(5, frozen: 1, freezes: 0) == .nothing)
        #expect(judge(5, frozen: 2, freezes: 2) == .frozen(freezeCount: 1, frozenThrough: LocalDate(year: 2026, month: 11, day: 17)))
        // A last activity after T's date (clock skew) is not a missed day.
        #expect(judge(-1, freezes: 0) == .nothing)
    }

    @Test func theDryRunPlanListsExactlyWhatTheRealRunWrites() async throws {
        let d = try makeFreezeData()
        defer { d.remove() }
        let real = try await GamificationCheck.expectPlanMatchesRun(d, "streak-reset", now: Self.now)
        let f1 = try #require(real.plan.changes.first { $0.path.description == "streaks/f1" })
        #expect(f1.fields.map { "\($0.field): \($0.before.map(JSONWriter.compact) ?? "-") → \($0.after.map(JSONWriter.compact) ?? "-")" } == [
            "currentStreak: 7 → 0", "isActive: true → false", #"resetAt: - → "2026-11-18T12:00:00.000Z""#,
        ])
    }

    @Test func aStreakWithAWrongFieldTypeIsSkippedAndNeverRewritten() async throws {
        let d = try makeFreezeData()
        defer { d.remove() }
        let bad = #"{"userId": "u42", "isActive": true, "freezeCount": "2", "currentStreak": 3, "lastActivityDate": "2026-11-01T00:00:00Z"}"#
        try d.writeDocument("streaks/u42_login", bad)
        let mtime = GamificationCheck.mtime(d, "streaks/u42_login")
        let outcome = try await d.run("streak-reset", now: Self.now)
        #expect(outcome.record.warnings == [
            #"streaks/u42_login.json: field "freezeCount": expected integer, found string "2""#,
            "streaks/nodate.json: active streak without lastActivityDate; skipped",
        ])
        #expect(d.text("streaks/u42_login") == bad + "\n")
        #expect(GamificationCheck.mtime(d, "streaks/u42_login") == mtime)
        #expect(try d.object("streaks/f1")?["isActive"] == .bool(false))
    }

    /// Written with HearthTesting (docs/jobs/README.md#writing-a-job): no files.
    @Test func aStreakWhoseUserDocumentIsInvalidIsNotJudgedInAGuessedZone() async throws {
        let s = Self.streak("bad", current: 3, longest: 3, freezes: 0, last: "2026-11-01T00:00:00.000Z")
        let ctx = try TestJobContext(StreakReset.self, documents: [
            "users/bad": #"{"timeZone": 5}"#,
            "streaks/bad_login": s,
        ], now: Self.now)
        try await ctx.run()
        try await ctx.commit()
        #expect(ctx.warnings == [
            #"users/bad.json: field "timeZone": expected string, found integer 5"#,
            "streaks/bad_login.json: skipped because users/bad.json is invalid (its time zone is unknown)",
        ])
        #expect(ctx.summaryLine == "No changes.")
        #expect(ctx.store.documentText("streaks/bad_login") == s)
    }

    @Test func onInvalidDocumentFailMakesTheRunFailAndCommitNothing() async throws {
        let d = try makeFreezeData()
        defer { d.remove() }
        try d.writeDocument("streaks/u42_login", #"{"userId": "u42", "isActive": true, "freezeCount": "2", "lastActivityDate": "2026-11-01T00:00:00Z"}"#)
        try await GamificationCheck.expectFailsOnInvalid(
            d, "streak-reset", now: Self.now, message: #"streaks/u42_login.json: field "freezeCount": expected integer, found string "2""#)
    }
}
