import Foundation

/// The next-fire search for a cron schedule: a re-implementation of the algorithm of Python's
/// `cronsim` (which mimics Debian cron), so that results agree with it exactly, DST included.
///
/// The search state is a local date-time (`wall` seconds plus the PEP 495 `fold` flag) that
/// is rolled forward field by field: month → day → hour → minute → second. Each step either
/// leaves the time alone (the field matches) or moves it to the start of the next candidate
/// and starts over, so a search costs a few dozen cheap integer steps, never a minute-by-minute
/// walk over days or years.
///
/// There are two modes, chosen by the expression text exactly as in `cronsim`:
/// - **fixed time** (neither the minute nor the hour field starts with `*`): the search runs in
///   naive local time; the result is the first occurrence of that local time, and a result
///   that falls inside a skipped (spring-forward) gap is moved forward minute by minute to the
///   first local time that exists ("runs once, right after the gap");
/// - **wall clock** (minute or hour field starts with `*`): every move is made on real
///   elapsed time through the zone's offsets ("tick" by 1 s, 60 s or 3600 s and convert back),
///   so the job follows the clock: it runs in both copies of a repeated hour and not at all in
///   a skipped one. The quirks of stepping this way near a transition are reproduced too.
struct CronSearch {
    private let fields: CronFields
    private var timeline: CronZoneTimeline
    private let naive: Bool
    private var wall: Int64
    private var fold: Bool

    /// Years searched before giving up (as `cronsim`).
    static let horizonYears: Int64 = 50

    /// Starts a search positioned at `start` (whole seconds since the Unix epoch); `next()`
    /// then returns fire times strictly after it.
    init(fields: CronFields, zone: TimeZone, start: Int64) {
        self.fields = fields
        self.naive = !fields.followsWallClock
        var timeline = CronZoneTimeline(zone: zone, from: start - 3 * CronCivil.secondsPerDay)
        let local = timeline.local(start)
        self.timeline = timeline
        self.wall = local.wall
        // A naive search forgets which copy of a repeated hour it started in (cronsim drops
        // the tzinfo); the caller skips results that are not after the start.
        self.fold = naive ? false : local.fold
    }

    /// The next fire time (seconds since the Unix epoch), or nil when none exists within
    /// `horizonYears`.
    mutating func next() -> Int64? {
        tick(1)
        guard advance() else { return nil }
        if naive {
            // A fixed local time that does not exist runs at the first minute that does.
            var guardMinutes = 0
            while timeline.isSkipped(wall: wall), guardMinutes < 24 * 60 {
                wall += 60
                guardMinutes += 1
            }
            return timeline.instant(wall: wall, fold: false)
        }
        return timeline.instant(wall: wall, fold: fold)
    }

    // MARK: - Moving the state

    @inline(__always)
    private mutating func tick(_ seconds: Int64) {
        if naive {
            wall += seconds
        } else {
            let instant = timeline.instant(wall: wall, fold: fold) + seconds
            (wall, fold) = timeline.local(instant)
        }
    }

    @inline(__always) private var secondOfDay: Int64 { CronCivil.floorMod(wall, CronCivil.secondsPerDay) }
    @inline(__always) private var dayNumber: Int64 { CronCivil.floorDiv(wall, CronCivil.secondsPerDay) }
    @inline(__always) private var hour: Int64 { secondOfDay / 3_600 }
    @inline(__always) private var minute: Int64 { secondOfDay % 3_600 / 60 }
    @inline(__always) private var second: Int64 { secondOfDay % 60 }

    /// Rolls the state forward until every field matches. Returns false past the horizon.
    private mutating func advance() -> Bool {
        let startYear = CronCivil.date(days: dayNumber).year
        while true {
            // Month: jump to the 1st of the next selected month.
            var date = CronCivil.date(days: dayNumber)
            if !fields.hasMonth(date.month) {
                var year = date.year, month = date.month
                repeat {
                    month += 1
                    if month > 12 { month = 1; year += 1 }
                } while !fields.hasMonth(month)
                let days = CronCivil.days(year: year, month: month, day: 1)
                wall = days * CronCivil.secondsPerDay
                fold = false
                date = (year, month, 1)
            }
            if date.year > startYear + Self.horizonYears { return false }

            // Day: walk to the next matching day, stopping at the 1st of a month to re-check it.
            var days = dayNumber
            if !fields.matchesDay(day: date.day, weekday: CronCivil.weekday(days: days)) {
                var day = date.day
                let monthLength = CronCivil.daysInMonth(year: date.year, month: date.month)
                repeat {
                    days += 1
                    day += 1
                    if day > monthLength { break }
                } while !fields.matchesDay(day: day, weekday: CronCivil.weekday(days: days))
                wall = days * CronCivil.secondsPerDay
                fold = false
                continue
            }

            // Hour: back to the top of the hour, then step an hour at a time (stopping at
            // midnight to re-check the day).
            if !fields.hasHour(hour) {
                wall -= secondOfDay % 3_600
                repeat {
                    tick(3_600)
                } while !fields.hasHour(hour) && hour != 0
                continue
            }

            // Minute: back to the top of the minute, jump when one minute is selected, then
            // step a minute at a time (stopping at the top of the hour to re-check it).
            if !fields.hasMinute(minute) {
                wall -= second
                if let target = fields.onlyMinute {
                    tick(CronCivil.floorMod(target - minute, 60) * 60)
                }
                while !fields.hasMinute(minute) {
                    tick(60)
                    if minute == 0 { break }
                }
                continue
            }

            // Second: cron fires at second 0.
            if second != 0 {
                tick(60 - second)
                while second != 0 { tick(1) }
                continue
            }
            return true
        }
    }
}
