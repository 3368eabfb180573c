import Foundation
import Testing
@testable import HearthKit
@testable import HearthSchedule
@testable import HearthHost

@Suite("Schedule parsing")
struct ScheduleParsingTests {
    private static let utc = TimeZone(identifier: "UTC")!
    private static let newYork = TimeZone(identifier: "America/New_York")!

    /// Parses `text`, which must fail, and returns the error's description.
    private func message(_ text: String, allowSeconds: Bool = false) -> String? {
        do {
            _ = try Schedule(parsing: text, allowSeconds: allowSeconds)
            return nil
        } catch {
            return error.description
        }
    }

    private func date(_ iso: String) throws -> Date {
        try #require(try? Date(iso, strategy: .iso8601), "bad date \(iso)")
    }

    private func fires(_ text: String, after iso: String, in zone: TimeZone = utc, count: Int) throws -> [String] {
        let schedule = try Schedule(parsing: text)
        return schedule.fireTimes(after: try date(iso), in: zone, count: count).map { $0.formatted(.iso8601) }
    }

    // MARK: - Error messages

    @Test("an out-of-range hour names the field, the value, what is accepted and the expression")
    func hourOutOfRangeMessage() {
        #expect(message("0 24 * * *") ==
            #"invalid schedule "0 24 * * *": cron field "hour": value "24" is out of range; accepted: 0-23, lists (1,5), ranges (1-5), steps (*/2)"#)
    }

    @Test("out-of-range values in every field produce field-specific messages")
    func outOfRangeMessages() {
        #expect(message("60 0 * * *") ==
            #"invalid schedule "60 0 * * *": cron field "minute": value "60" is out of range; accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 0 * *") ==
            #"invalid schedule "0 0 0 * *": cron field "day-of-month": value "0" is out of range; accepted: 1-31, lists (1,15), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 * 13 *") ==
            #"invalid schedule "0 0 * 13 *": cron field "month": value "13" is out of range; accepted: 1-12 or JAN-DEC, lists (1,7), ranges (JAN-MAR), steps (*/3)"#)
        #expect(message("0 0 * * 8") ==
            #"invalid schedule "0 0 * * 8": cron field "day-of-week": value "8" is out of range; accepted: 0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"#)
        #expect(message("0 1-24 * * *") ==
            #"invalid schedule "0 1-24 * * *": cron field "hour": value "24" is out of range; accepted: 0-23, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 * * 99999999999999999999999") ==
            #"invalid schedule "0 0 * * 99999999999999999999999": cron field "day-of-week": value "99999999999999999999999" is out of range; accepted: 0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"#)
    }

    @Test("names are accepted only in their own field and must be real names")
    func nameErrors() {
        #expect(message("0 0 * * JAN") ==
            #"invalid schedule "0 0 * * JAN": cron field "day-of-week": value "JAN" is neither a number nor a weekday name (SUN-SAT); accepted: 0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"#)
        #expect(message("0 0 * MONDAY *") ==
            #"invalid schedule "0 0 * MONDAY *": cron field "month": value "MONDAY" is neither a number nor a month name (JAN-DEC); accepted: 1-12 or JAN-DEC, lists (1,7), ranges (JAN-MAR), steps (*/3)"#)
        #expect(message("x 0 * * *") ==
            #"invalid schedule "x 0 * * *": cron field "minute": value "x" is not a number; accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 MON * * *")?.contains(#"cron field "hour": value "MON" is not a number"#) == true)
    }

    @Test("bad steps, backwards ranges and empty list items are rejected with the offending text")
    func syntaxErrors() {
        #expect(message("*/0 * * * *") ==
            #"invalid schedule "*/0 * * * *": cron field "minute": value "*/0" has a step of 0 (steps start at 1); accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("*/x * * * *") ==
            #"invalid schedule "*/x * * * *": cron field "minute": value "*/x" has a step that is not a whole number; accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 5-1 * * *") ==
            #"invalid schedule "0 5-1 * * *": cron field "hour": value "5-1" is a backwards range (start after end); accepted: 0-23, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 * * FRI-MON") ==
            #"invalid schedule "0 0 * * FRI-MON": cron field "day-of-week": value "FRI-MON" is a backwards range (start after end); accepted: 0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"#)
        #expect(message("1,,2 * * * *") ==
            #"invalid schedule "1,,2 * * * *": cron field "minute": value "1,,2" has an empty list item; accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 1- * *") ==
            #"invalid schedule "0 0 1- * *": cron field "day-of-month": value "1-" is an incomplete range (write a-b); accepted: 1-31, lists (1,15), ranges (1-5), steps (*/2)"#)
        #expect(message("/5 * * * *") ==
            #"invalid schedule "/5 * * * *": cron field "minute": value "/5" has nothing before the step (write */n, a/n or a-b/n); accepted: 0-59, lists (1,5), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 L * *") ==
            #"invalid schedule "0 0 L * *": cron field "day-of-month": value "L" uses syntax (L, W, #, ?) that this scheduler does not support; accepted: 1-31, lists (1,15), ranges (1-5), steps (*/2)"#)
        #expect(message("0 0 * * MON#2") ==
            #"invalid schedule "0 0 * * MON#2": cron field "day-of-week": value "MON#2" uses syntax (L, W, #, ?) that this scheduler does not support; accepted: 0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"#)
    }

    @Test("the first bad field is reported, in field order")
    func firstBadFieldWins() {
        #expect(message("99 99 99 99 99")?.contains(#"cron field "minute": value "99""#) == true)
        #expect(message("0 99 99 99 99")?.contains(#"cron field "hour": value "99""#) == true)
    }

    @Test("a wrong number of fields, an empty expression and unknown macros are rejected")
    func shapeErrors() {
        let accepted = "accepted: a 5-field cron expression (minute hour day-of-month month day-of-week), a macro (@hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually) or an interval (every 5 minutes, every 2 hours, every 1 day)"
        #expect(message("0 0 * *") == #"invalid schedule "0 0 * *": has 4 fields but a cron expression needs 5; "# + accepted)
        #expect(message("0 0 0 * * *") ==
            #"invalid schedule "0 0 0 * * *": has 6 fields but a cron expression needs 5 (a seconds field is not supported); "# + accepted)
        #expect(message("   ") == #"invalid schedule "": is empty; "# + accepted)
        #expect(message("@reboot") ==
            #"invalid schedule "@reboot": macro "@reboot" is not supported; accepted: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually"#)
        #expect(message("@daily 5") ==
            #"invalid schedule "@daily 5": has text after the macro @daily; accepted: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually"#)
    }

    @Test("a day of the month that the selected months never have is rejected, as by cronsim")
    func neverFiringDayIsRejected() throws {
        #expect(message("0 0 30 2 *") ==
            #"invalid schedule "0 0 30 2 *": cron field "day-of-month": value "30" never occurs in the selected month(s) "2", so the job would never run; accepted: a day that exists in at least one selected month (February has up to 29 days; April, June, September and November 30)"#)
        #expect(message("0 0 31 4,6,9,11 *") != nil)
        // With the OR rule (both day fields restricted) the weekday still fires.
        _ = try Schedule(parsing: "0 0 30 2 MON")
        // Feb 29 exists, every four years.
        #expect(try fires("0 0 29 2 *", after: "2025-01-01T00:00:00Z", count: 2) ==
            ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"])
    }

    @Test("the structured error fields carry the field, value, problem and accepted text")
    func structuredErrorFields() {
        do {
            _ = try Schedule(parsing: "0 0 * * 8")
            Issue.record("expected an error")
        } catch {
            #expect(error.expression == "0 0 * * 8")
            #expect(error.field == "day-of-week")
            #expect(error.value == "8")
            #expect(error.problem == "is out of range")
            #expect(error.accepted.hasPrefix("0-7"))
        }
    }

    // MARK: - Accepted forms

    @Test("month and weekday names are case-insensitive and equal their numbers")
    func namesEqualNumbers() throws {
        #expect(try Schedule(parsing: "0 9 * jan,Jul,DEC mon-FRI") == Schedule(parsing: "0 9 * 1,7,12 1-5"))
        #expect(try Schedule(parsing: "0 0 * * sun,SAT") == Schedule(parsing: "0 0 * * 0,6"))
        #expect(try Schedule(parsing: "0 0 * feb-apr/2 *") == Schedule(parsing: "0 0 * 2,4 *"))
        #expect(try fires("0 9 * * MON-FRI", after: "2026-06-05T12:00:00Z", count: 3) ==
            ["2026-06-08T09:00:00Z", "2026-06-09T09:00:00Z", "2026-06-10T09:00:00Z"])  // Fri → Mon
    }

    @Test("7 is Sunday, like 0")
    func sevenIsSunday() throws {
        #expect(try Schedule(parsing: "0 12 * * 7") == Schedule(parsing: "0 12 * * 0"))
        #expect(try Schedule(parsing: "0 12 * * 5-7") == Schedule(parsing: "0 12 * * 0,5,6"))
        #expect(try fires("0 12 * * 7", after: "2026-06-01T00:00:00Z", count: 2) ==
            ["2026-06-07T12:00:00Z", "2026-06-14T12:00:00Z"])  // Sundays
    }

    @Test("steps: */n, a-b/n and a/n meaning a-max/n")
    func steps() throws {
        #expect(try Schedule(parsing: "5/10 * * * *") == Schedule(parsing: "5,15,25,35,45,55 * * * *"))
        #expect(try Schedule(parsing: "1-30/5 * * * *") == Schedule(parsing: "1,6,11,16,21,26 * * * *"))
        #expect(try Schedule(parsing: "0 0 * * 1/2") == Schedule(parsing: "0 0 * * 0,1,3,5"))
        #expect(try fires("*/15 * * * *", after: "2026-06-01T10:07:30Z", count: 3) ==
            ["2026-06-01T10:15:00Z", "2026-06-01T10:30:00Z", "2026-06-01T10:45:00Z"])
    }

    @Test("both day fields restricted: a day matching either one fires (Vixie OR rule)")
    func dayFieldsOr() throws {
        // June 2026: the 1st is a Monday; Fridays are the 5th, 12th...; the 13th is a Saturday.
        #expect(try fires("0 0 13 * FRI", after: "2026-06-01T00:00:00Z", count: 4) ==
            ["2026-06-05T00:00:00Z", "2026-06-12T00:00:00Z", "2026-06-13T00:00:00Z", "2026-06-19T00:00:00Z"])
    }

    @Test("a day field starting with * counts as unrestricted, so */2 with a weekday means AND")
    func starStepDayFieldIsUnrestricted() throws {
        // Odd days of June 2026 that are Mondays: the 1st, 15th, 29th.
        #expect(try fires("0 0 */2 * MON", after: "2026-05-31T00:00:00Z", count: 3) ==
            ["2026-06-01T00:00:00Z", "2026-06-15T00:00:00Z", "2026-06-29T00:00:00Z"])
        // The same days written without the star are "restricted": OR.
        #expect(try Schedule(parsing: "0 0 */2 * MON") != Schedule(parsing: "0 0 1-31/2 * MON"))
        #expect(try fires("0 0 1-31/2 * MON", after: "2026-05-31T00:00:00Z", count: 3) ==
            ["2026-06-01T00:00:00Z", "2026-06-03T00:00:00Z", "2026-06-05T00:00:00Z"])
    }

    @Test("macros equal their cron expansions")
    func macros() throws {
        let expansions = [
            "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
            "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *",
            "@annually": "0 0 1 1 *", "@DAILY": "0 0 * * *",
        ]
        for (macro, cron) in expansions {
            #expect(try Schedule(parsing: macro) == Schedule(parsing: cron), "\(macro)")
        }
        #expect(try Schedule(parsing: "@daily").description == "@daily")
        #expect(try fires("@weekly", after: "2026-06-01T00:00:00Z", count: 1) == ["2026-06-07T00:00:00Z"])
    }

    @Test("expressions keep their text, with runs of whitespace collapsed")
    func descriptionIsNormalizedText() throws {
        let schedule = try Schedule(parsing: "  */5\t*  * * *\n")
        #expect(schedule.description == "*/5 * * * *")
        #expect(schedule.expression == "*/5 * * * *")
        #expect(Set([schedule, try Schedule(parsing: "*/5 * * * *")]).count == 1)
    }

    // MARK: - Intervals

    @Test("intervals fire at multiples of the period after the Unix epoch, in UTC")
    func intervalsAreAnchoredAtTheEpoch() throws {
        #expect(try fires("every 7 minutes", after: "1970-01-01T00:00:01Z", count: 2) ==
            ["1970-01-01T00:07:00Z", "1970-01-01T00:14:00Z"])
        // 2026-06-01T00:00:00Z is 1780272000 s = 29671200 min = 7·4238742 + 6 min.
        #expect(try fires("every 7 minutes", after: "2026-06-01T00:00:00Z", count: 1) == ["2026-06-01T00:01:00Z"])
        #expect(try fires("every 15 minutes", after: "2026-06-01T10:07:30Z", count: 2) ==
            ["2026-06-01T10:15:00Z", "2026-06-01T10:30:00Z"])
        // ... = 494520 h, a multiple of 5.
        #expect(try fires("every 5 hours", after: "2026-06-01T00:00:00Z", count: 2) ==
            ["2026-06-01T05:00:00Z", "2026-06-01T10:00:00Z"])
        // The zone does not matter: "every 1 day" is midnight UTC, also in New York.
        #expect(try fires("every 1 day", after: "2026-06-01T12:00:00Z", in: Self.newYork, count: 1) == ["2026-06-02T00:00:00Z"])
        // ... = day 20605 since the epoch, an odd one.
        #expect(try fires("every 2 days", after: "2026-06-01T12:00:00Z", count: 1) == ["2026-06-02T00:00:00Z"])
    }

    @Test("interval units may be singular or plural and any case; fire times are strictly after the base")
    func intervalSpellings() throws {
        #expect(try Schedule(parsing: "every 1 minute") == Schedule(parsing: "EVERY 1 Minutes"))
        #expect(try Schedule(parsing: "every 1 hour") == Schedule(parsing: "every 60 minutes"))
        #expect(try Schedule(parsing: "every 1 day") == Schedule(parsing: "every 24 hours"))
        // A base exactly on a slot gets the next slot.
        #expect(try fires("every 1 minute", after: "2026-06-01T10:00:00Z", count: 1) == ["2026-06-01T10:01:00Z"])
    }

    @Test("bad intervals are rejected with what is accepted")
    func intervalErrors() {
        let accepted = "accepted: every N minutes, hours or days with N a whole number from 1 (e.g. every 5 minutes, every 1 day)"
        #expect(message("every 0 minutes") == #"invalid schedule "every 0 minutes": interval "0" is zero; "# + accepted)
        #expect(message("every 5 fortnights") == #"invalid schedule "every 5 fortnights": interval "fortnights" is not a known unit; "# + accepted)
        #expect(message("every x minutes") == #"invalid schedule "every x minutes": interval "x" is not a whole number; "# + accepted)
        #expect(message("every 5") == #"invalid schedule "every 5": interval "5" is not of the form "every N unit"; "# + accepted)
        #expect(message("every 99999 days") ==
            #"invalid schedule "every 99999 days": interval "99999" is too large (the longest interval is 3650 days); "# + accepted)
    }

    @Test("second intervals are rejected unless explicitly allowed")
    func secondsNeedPermission() throws {
        #expect(message("every 30 seconds") ==
            #"invalid schedule "every 30 seconds": interval "seconds" is only accepted when the configuration explicitly allows second intervals; accepted: every N minutes, hours or days with N a whole number from 1 (e.g. every 5 minutes, every 1 day)"#)
        #expect(message("every 1 second") != nil)
        let schedule = try Schedule(parsing: "every 30 seconds", allowSeconds: true)
        let next = schedule.fireTimes(after: try date("2026-06-01T10:00:10Z"), in: Self.utc, count: 3)
        #expect(next.map { $0.formatted(.iso8601) } == ["2026-06-01T10:00:30Z", "2026-06-01T10:01:00Z", "2026-06-01T10:01:30Z"])
        #expect(try Schedule(parsing: "every 1 second", allowSeconds: true) != Schedule(parsing: "every 1 minute"))
        // Cron expressions are unaffected by the flag.
        #expect(try Schedule(parsing: "0 0 * * *", allowSeconds: true) == Schedule(parsing: "0 0 * * *"))
    }

    // MARK: - Next fire

    @Test("next fire is strictly after the base, ignoring fractions of a second")
    func strictlyAfter() throws {
        let schedule = try Schedule(parsing: "0 12 * * *")
        let noon = try date("2026-06-01T12:00:00Z")
        #expect(schedule.nextFire(after: noon, in: Self.utc) == noon.addingTimeInterval(86_400))
        #expect(schedule.nextFire(after: noon.addingTimeInterval(-0.5), in: Self.utc) == noon)
        #expect(schedule.nextFire(after: noon.addingTimeInterval(0.25), in: Self.utc) == noon.addingTimeInterval(86_400))
        let interval = try Schedule(parsing: "every 10 minutes")
        #expect(interval.nextFire(after: noon.addingTimeInterval(-0.5), in: Self.utc) == noon)
    }

    @Test("no fire time outside the supported years")
    func outOfRangeBase() throws {
        let schedule = try Schedule(parsing: "0 0 * * *")
        #expect(schedule.nextFire(after: Date(timeIntervalSince1970: 1e15), in: Self.utc) == nil)
        #expect(schedule.nextFire(after: Date(timeIntervalSince1970: -1e15), in: Self.utc) == nil)
        #expect(schedule.nextFire(after: .distantFuture, in: Self.utc) != nil)  // year 4001 is fine
        #expect(schedule.fireTimes(after: Date(), in: Self.utc, count: 0).isEmpty)
    }

    @Test("a fixed time in the skipped hour runs once, right after the gap")
    func springForwardFixedTime() throws {
        // New York, 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00Z).
        #expect(try fires("30 2 * * *", after: "2026-03-07T12:00:00Z", in: Self.newYork, count: 3) ==
            ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"])
        #expect(try fires("15,45 2 * * *", after: "2026-03-08T00:00:00Z", in: Self.newYork, count: 2) ==
            ["2026-03-08T07:00:00Z", "2026-03-09T06:15:00Z"])
        // Lord Howe, 2026-10-04: 02:00 (+10:30) becomes 02:30 (+11:00), a 30-minute shift.
        let lordHowe = try #require(TimeZone(identifier: "Australia/Lord_Howe"))
        #expect(try fires("15 2 * * *", after: "2026-10-03T12:00:00Z", in: lordHowe, count: 2) ==
            ["2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"])
    }

    @Test("a fixed time in the repeated hour runs once; a wall-clock schedule runs in both copies")
    func fallBack() throws {
        // New York, 2026-11-01: 01:00-02:00 happens twice (05:00Z-06:00Z EDT, 06:00Z-07:00Z EST).
        #expect(try fires("30 1 * * *", after: "2026-10-31T12:00:00Z", in: Self.newYork, count: 2) ==
            ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"])
        #expect(try fires("30 * * * *", after: "2026-11-01T04:00:00Z", in: Self.newYork, count: 4) ==
            ["2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:30:00Z"])
        // Asked from inside the second copy, the fixed time does not run again.
        #expect(try fires("50 1 * * *", after: "2026-11-01T06:40:00Z", in: Self.newYork, count: 1) ==
            ["2026-11-02T06:50:00Z"])
    }

    @Test("150k next-fire computations stay fast (no minute-by-minute walking)")
    func manyComputationsAreCheap() throws {
        let schedules = try ["0 0 29 2 *", "*/7 * * * *", "30 2 * * SUN", "0 0 1 1 *", "59 23 31 12 *"]
            .map { try Schedule(parsing: $0) }
        let zone = try #require(TimeZone(identifier: "Australia/Lord_Howe"))
        let clock = ContinuousClock()
        var count = 0
        let elapsed = clock.measure {
            for schedule in schedules {
                var cursor = Date(timeIntervalSince1970: 1_735_689_600)
                for _ in 0..<30_000 {
                    guard schedule.nextFire(after: cursor, in: zone) != nil else { break }
                    // Bases every 1000 s over about a year from 2025-01-01.
                    cursor = Date(timeIntervalSince1970: 1_735_689_600 + Double(count % 30_000) * 1_000)
                    count += 1
                }
            }
        }
        #expect(count == 150_000)
        // Generous bound (debug build, shared CI machine); the real cost is a few µs each.
        #expect(elapsed < .seconds(30), "150k next-fire computations took \(elapsed)")
    }
}
