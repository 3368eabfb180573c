package import Foundation
import HearthKit

/// How a `Schedule` maps onto a systemd timer's `OnCalendar=` setting.
package enum SystemdCalendar: Sendable, Equatable {
    /// An `OnCalendar=` value in systemd.time(7) syntax with the zone appended, e.g.
    /// `Mon *-*-* 00:05:00 America/Chicago`. Away from DST transitions its elapses (as printed
    /// by `systemd-analyze calendar`) equal `Schedule.fireTimes`; see `Schedule.dstNote` for
    /// what happens near them.
    case exact(String)
    /// No single `OnCalendar=` value is equivalent; `reason` says why, for the operator.
    case unsupported(reason: String)
}

extension Schedule {
    /// The `OnCalendar=` equivalent of this schedule evaluated in `timeZone`.
    ///
    /// Cron fields become the weekday, `*-MONTH-DAY` and `HOUR:MINUTE:00` parts (lists,
    /// `a..b` ranges and `start/step` repetitions). Not expressible, so `.unsupported`:
    /// - both day fields restricted (`0 0 1 * MON`): cron runs when *either* matches, systemd
    ///   only when *both* do;
    /// - intervals that do not divide a minute, an hour or a day evenly (`every 7 minutes`,
    ///   `every 5 hours`, `every 90 minutes`, `every 2 days`): Hearth anchors them at the Unix
    ///   epoch while a calendar repetition restarts every hour, day or month.
    /// Intervals that do divide evenly are written in UTC (`every 15 minutes` →
    /// `*-*-* *:00/15:00 UTC`), as they are anchored in UTC.
    package func systemdOnCalendar(timeZone: TimeZone) -> SystemdCalendar {
        switch rule {
        case .never:
            return .unsupported(reason: "the job has no schedule (calls and writes start it); no timer is written")
        case .interval(let period):
            return Self.systemdInterval(period, expression: expression)
        case .cron(let fields):
            guard let zoneName = Self.systemdZoneName(timeZone) else {
                return .unsupported(reason:
                    "time zone \"\(timeZone.identifier)\" has no IANA name that systemd understands; use a zone such as Europe/Berlin or UTC")
            }
            return Self.systemdCalendar(fields, expression: expression, zoneName: zoneName)
        }
    }

    /// Whether a systemd timer made from `systemdOnCalendar(timeZone:)` behaves differently
    /// from `hearth next` around the DST transitions of `timeZone` between `start` and
    /// `years` later; nil when it does not (or when there is no exact timer, or no DST).
    ///
    /// systemd skips a calendar time that does not exist locally and fires once, at the first
    /// occurrence, for one that exists twice. Hearth (cron semantics) differs in two ways:
    /// a fixed time inside a skipped hour runs right after the gap, and a schedule whose
    /// minute or hour field starts with `*` runs in both copies of a repeated hour. The note
    /// is computed by comparing both behaviours around each transition, so it only appears
    /// when the schedule really has a run there, and names the first affected dates.
    ///
    /// The systemd side is a model of that documented behaviour, checked against
    /// `systemd-analyze calendar` in the tests. systemd 252 also has quirks of its own on
    /// DST-change days that the model does not predict (e.g. `*-*-01/7 00:00:00` chains can
    /// skip the midnight of the change day), so treat the note as a lower bound.
    package func dstNote(timeZone: TimeZone, from start: Date = Date(), years: Int = 5) -> String? {
        guard case .cron(let fields) = rule,
              case .exact = systemdOnCalendar(timeZone: timeZone),
              Self.supportedSeconds.contains(start.timeIntervalSince1970)
        else { return nil }
        let from = Int64(start.timeIntervalSince1970.rounded(.down))
        let through = from + Int64(max(0, min(years, 100))) * 366 * CronCivil.secondsPerDay
        var timeline = CronZoneTimeline(zone: timeZone, from: from - 3 * CronCivil.secondsPerDay)
        var affected: [String] = []
        var affectedCount = 0
        var skippedByClock = false, repeatedByClock = false
        let transitions = timeline.transitions(from: from, through: through)
        for transition in transitions {
            let differences = systemdDifferences(fields, timeZone: timeZone, transition: transition.instant)
            guard !differences.hearthOnly.isEmpty || !differences.systemdOnly.isEmpty else { continue }
            affectedCount += 1
            let springForward = transition.after > transition.before
            if springForward { skippedByClock = true } else { repeatedByClock = true }
            guard affected.count < 2 else { continue }
            let day = Self.localDescription(transition.instant, &timeline, dateOnly: true)
            let low = Self.clockDescription(transition.instant + min(transition.before, transition.after))
            let high = Self.clockDescription(transition.instant + max(transition.before, transition.after))
            let change = springForward ? "clocks skip \(low)-\(high)" : "clocks repeat \(low)-\(high)"
            func list(_ instants: [Int64]) -> String {
                instants.prefix(4).map { Self.localDescription($0, &timeline, dateOnly: false) }
                    .joined(separator: ", ") + (instants.count > 4 ? ", ..." : "")
            }
            var clauses: [String] = []
            if !differences.hearthOnly.isEmpty { clauses.append("only hearth runs at \(list(differences.hearthOnly))") }
            if !differences.systemdOnly.isEmpty { clauses.append("only systemd runs at \(list(differences.systemdOnly))") }
            affected.append("\(day) (\(change)): " + clauses.joined(separator: "; "))
        }
        guard affectedCount > 0 else { return nil }
        var reasons: [String] = []
        if skippedByClock {
            reasons.append(fields.followsWallClock
                ? "near a skipped hour the two step through the missing local times differently"
                : "a run whose local time falls in a skipped hour runs right after the gap under hearth, but systemd skips it")
        }
        if repeatedByClock {
            reasons.append(fields.followsWallClock
                ? "in a repeated hour hearth follows the wall clock and runs in both copies, systemd runs only in the first"
                : "in a repeated hour hearth and systemd pick different copies")
        }
        return "systemd timer in \(timeZone.identifier) differs from `hearth next` at \(affectedCount) of the "
            + "\(transitions.count) DST changes in the next \(years) years: \(reasons.joined(separator: "; ")). "
            + affected.joined(separator: ". ") + "."
    }

    // MARK: - DST comparison

    /// Fire times near `transition` that only Hearth, or only systemd, has: over the local
    /// hours on both sides of it (±6 h).
    func systemdDifferences(
        _ fields: CronFields, timeZone: TimeZone, transition: Int64
    ) -> (hearthOnly: [Int64], systemdOnly: [Int64]) {
        let window = (transition - 6 * 3_600)...(transition + 6 * 3_600)
        let hearth = Set(hearthFires(in: window, zone: timeZone))
        let systemd = Set(Self.systemdElapses(fields, zone: timeZone, in: window))
        return (hearth.subtracting(systemd).sorted(), systemd.subtracting(hearth).sorted())
    }

    /// Hearth's fire times within `window` (excluding its lower bound).
    func hearthFires(in window: ClosedRange<Int64>, zone: TimeZone) -> [Int64] {
        guard case .cron(let fields) = rule else { return [] }
        var search = CronSearch(fields: fields, zone: zone, start: window.lowerBound)
        var result: [Int64] = []
        while let next = search.next(), next <= window.upperBound {
            if next > window.lowerBound { result.append(next) }
        }
        return result
    }

    /// What a systemd timer does within `window` (excluding its lower bound), started before
    /// it: every matching local time that exists, once, at its first occurrence.
    static func systemdElapses(_ fields: CronFields, zone: TimeZone, in window: ClosedRange<Int64>) -> [Int64] {
        var timeline = CronZoneTimeline(zone: zone, from: window.lowerBound - 3 * CronCivil.secondsPerDay)
        let wallStart = timeline.local(window.lowerBound).wall - 3 * 3_600
        let wallEnd = timeline.local(window.upperBound).wall + 3 * 3_600
        // Matching local times: the same search run on a zone without transitions.
        var naive = fields
        naive.followsWallClock = false
        guard let utc = TimeZone(secondsFromGMT: 0) else { return [] }
        var search = CronSearch(fields: naive, zone: utc, start: wallStart)
        var result: [Int64] = []
        while let wall = search.next(), wall <= wallEnd {
            guard !timeline.isSkipped(wall: wall) else { continue }
            let instant = timeline.instant(wall: wall, fold: false)
            if window.contains(instant), instant > window.lowerBound { result.append(instant) }
        }
        return result.sorted()
    }

    private static func clockDescription(_ wall: Int64) -> String {
        let secondOfDay = CronCivil.floorMod(wall, CronCivil.secondsPerDay)
        return pad(Int(secondOfDay / 3_600)) + ":" + pad(Int(secondOfDay % 3_600 / 60))
    }

    private static func localDescription(_ instant: Int64, _ timeline: inout CronZoneTimeline, dateOnly: Bool) -> String {
        let offset = timeline.offset(at: instant)
        let wall = instant + offset
        let date = CronCivil.date(days: CronCivil.floorDiv(wall, CronCivil.secondsPerDay))
        let day = "\(date.year)-\(pad(Int(date.month)))-\(pad(Int(date.day)))"
        if dateOnly { return day }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return "\(clockDescription(wall)) (UTC\(sign)\(pad(Int(magnitude / 3_600))):\(pad(Int(magnitude % 3_600 / 60))))"
    }

    // MARK: - Building OnCalendar= values

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// A zone name systemd accepts: the IANA identifier, or `Etc/GMT±h` for whole-hour fixed
    /// offsets created with `TimeZone(secondsFromGMT:)`.
    static func systemdZoneName(_ zone: TimeZone) -> String? {
        let identifier = zone.identifier
        // Foundation on Linux names UTC "GMT"; systemd accepts both, "UTC" reads better.
        if identifier == "UTC" || identifier == "GMT" { return "UTC" }
        if identifier.contains("/") { return identifier }
        if identifier.hasPrefix("GMT") {
            let offset = zone.secondsFromGMT()
            guard offset % 3_600 == 0, abs(offset) <= 14 * 3_600 else { return nil }
            let hours = offset / 3_600
            // POSIX-style names invert the sign: Etc/GMT-2 is two hours *east* of Greenwich.
            return hours == 0 ? "UTC" : "Etc/GMT\(hours > 0 ? "-" : "+")\(abs(hours))"
        }
        return identifier.isEmpty ? nil : identifier
    }

    /// Values as a systemd component: `*`, or items joined by commas, each a value, an
    /// `a..b` range or a `start/step` (`start..end/step`) repetition.
    static func systemdComponent(_ values: [Int], all: ClosedRange<Int>) -> String {
        if values == Array(all) { return "*" }
        if values.count >= 3 {
            let step = values[1] - values[0]
            let isProgression = step > 1 && zip(values, values.dropFirst()).allSatisfy { $1 - $0 == step }
            if isProgression, let first = values.first, let last = values.last {
                return last + step > all.upperBound
                    ? "\(pad(first))/\(step)"
                    : "\(pad(first))..\(pad(last))/\(step)"
            }
        }
        return runs(values).map { run in
            run.count >= 3 ? "\(pad(run.first ?? 0))..\(pad(run.last ?? 0))" : run.map(pad).joined(separator: ",")
        }.joined(separator: ",")
    }

    /// Splits sorted values into runs of consecutive numbers.
    private static func runs(_ values: [Int]) -> [[Int]] {
        var result: [[Int]] = []
        for value in values {
            if let last = result.last?.last, last + 1 == value {
                result[result.count - 1].append(value)
            } else {
                result.append([value])
            }
        }
        return result
    }

    private static func systemdWeekdays(_ mask: UInt8) -> String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        // systemd order is Monday (1) ... Sunday (7); cron bit 0 is Sunday.
        let days = (1...7).filter { mask & (1 << UInt8($0 % 7)) != 0 }
        return runs(days).map { run in
            run.count >= 3
                ? "\(names[(run.first ?? 1) - 1])..\(names[(run.last ?? 1) - 1])"
                : run.map { names[$0 - 1] }.joined(separator: ",")
        }.joined(separator: ",")
    }

    private static func members<T: FixedWidthInteger>(_ mask: T, _ range: ClosedRange<Int>) -> [Int] {
        range.filter { mask & (T(1) << T($0)) != 0 }
    }

    static func systemdCalendar(_ fields: CronFields, expression: String, zoneName: String) -> SystemdCalendar {
        let allDays = fields.daysOfMonth == CronFields.allDaysOfMonth
        let allWeekdays = fields.daysOfWeek == CronFields.allDaysOfWeek
        var weekdays: String? = nil
        var days = "*"
        if fields.daysMustMatchBoth {
            if !allDays { days = systemdComponent(members(fields.daysOfMonth, 1...31), all: 1...31) }
            if !allWeekdays { weekdays = systemdWeekdays(fields.daysOfWeek) }
        } else if !allDays && !allWeekdays {
            return .unsupported(reason:
                "\"\(expression)\" restricts both day-of-month and day-of-week, so cron runs on days matching either one; "
                + "systemd's OnCalendar= runs only on days matching both. Use two schedules, or start one of the day fields with *")
        }
        let months = systemdComponent(members(fields.months, 1...12), all: 1...12)
        let hours = systemdComponent(members(fields.hours, 0...23), all: 0...23)
        let minutes = systemdComponent(members(fields.minutes, 0...59), all: 0...59)
        let calendar = "*-\(months)-\(days) \(hours):\(minutes):00 \(zoneName)"
        return .exact(weekdays.map { "\($0) \(calendar)" } ?? calendar)
    }

    static func systemdInterval(_ period: Int64, expression: String) -> SystemdCalendar {
        let day: Int64 = 86_400, hour: Int64 = 3_600, minute: Int64 = 60
        func unsupported(_ why: String) -> SystemdCalendar {
            .unsupported(reason:
                "\"\(expression)\" \(why); Hearth counts intervals from 1970-01-01 00:00 UTC, "
                + "while an OnCalendar= repetition restarts every minute, hour, day or month")
        }
        if period % day == 0 {
            return period == day ? .exact("*-*-* 00:00:00 UTC") : unsupported("spans several days")
        }
        if period % hour == 0 {
            let hours = period / hour
            if hours == 1 { return .exact("*-*-* *:00:00 UTC") }
            return day % period == 0
                ? .exact("*-*-* 00/\(hours):00:00 UTC")
                : unsupported("does not divide a day evenly")
        }
        if period % minute == 0 {
            let minutes = period / minute
            if minutes == 1 { return .exact("*-*-* *:*:00 UTC") }
            return hour % period == 0
                ? .exact("*-*-* *:00/\(minutes):00 UTC")
                : unsupported("does not divide an hour evenly")
        }
        if period == 1 { return .exact("*-*-* *:*:* UTC") }
        return minute % period == 0
            ? .exact("*-*-* *:*:00/\(period) UTC")
            : unsupported("does not divide a minute evenly")
    }
}
