package import Foundation

/// When a job runs: a cron expression, a macro, or a fixed interval.
///
/// Accepted forms (see `init(parsing:allowSeconds:)`):
/// - 5-field cron, `minute hour day-of-month month day-of-week`, with lists (`1,15`), ranges
///   (`1-5`, `MON-FRI`), steps (`*/15`, `1-30/5`, and `5/10` meaning `5-59/10` as in cronie),
///   month names `JAN`-`DEC` and weekday names `SUN`-`SAT` in any case, and `7` = Sunday;
/// - macros `@hourly @daily @midnight @weekly @monthly @yearly @annually`;
/// - intervals `every N minutes|hours|days` (singular units too), and `every N seconds` only
///   when explicitly allowed.
///
/// Next-fire times agree exactly with Python's `cronsim` (which follows Debian cron), which
/// the golden-vector tests pin:
/// - **Day rule (Vixie OR).** When both day fields are restricted a day matches if *either*
///   matches. A day field counts as restricted unless its text starts with `*`, so
///   `0 0 */2 * MON` means "odd days that are Mondays" (AND) while `0 0 1 * MON` means "the
///   1st, and every Monday" (OR).
/// - **DST, fixed times** (neither minute nor hour field starts with `*`): a local time inside
///   a skipped hour runs once, right after the gap (`30 2 * * *` runs at 03:00 on the
///   spring-forward night in New York); a local time inside a repeated hour runs once, at its
///   first occurrence.
/// - **DST, wall-clock jobs** (minute or hour field starts with `*`, e.g. `*/15 * * * *` or
///   `0 * * * *`): the job follows the clock, so it runs in both copies of a repeated hour and
///   skips the local times that do not exist.
/// - **Intervals** are anchored at the Unix epoch in UTC and ignore the zone: `every N unit`
///   fires at `1970-01-01T00:00:00Z + k·N·unit`, so `every 1 day` fires at 00:00 UTC.
///
/// Equality and hashing compare what the schedule *means*, not how it was spelled:
/// `@daily == 0 0 * * *`, but `*/15 * * * *` differs from `0-59/15 * * * *` (only the former
/// follows the wall clock through DST, as explained above).
package struct Schedule: Sendable, Hashable, CustomStringConvertible {
    enum Rule: Sendable, Hashable {
        case cron(CronFields)
        /// Fires at every multiple of `seconds` after the Unix epoch.
        case interval(seconds: Int64)
        /// Never fires: a job with no schedule (a callable one), which calls, writes and
        /// `hearth run` start.
        case never
    }

    /// The expression as written, with runs of whitespace collapsed to one space.
    package let expression: String
    let rule: Rule

    /// Parses a schedule; `every N seconds` is rejected.
    package init(parsing expression: String) throws(ScheduleError) {
        try self.init(parsing: expression, allowSeconds: false)
    }

    /// Parses a schedule. `allowSeconds` admits `every N seconds`, which the daemon enables
    /// only when the configuration asks for it explicitly (for tests).
    package init(parsing expression: String, allowSeconds: Bool) throws(ScheduleError) {
        let normalized = expression.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        self.rule = try CronParser.parse(normalized, allowSeconds: allowSeconds)
        self.expression = normalized
    }

    package var description: String { expression }

    /// No schedule: no fire time, ever (written `""` in the configuration).
    package static let none = Schedule(expression: "", rule: .never)

    private init(expression: String, rule: Rule) {
        self.expression = expression
        self.rule = rule
    }

    /// A job's configured schedule: ``none`` for `""` (a job with no schedule), else parsed
    /// as ``init(parsing:allowSeconds:)``.
    package static func configured(_ expression: String, allowSeconds: Bool) throws(ScheduleError) -> Schedule {
        expression.isEmpty ? .none : try Schedule(parsing: expression, allowSeconds: allowSeconds)
    }

    /// Whether the schedule ever fires (false for ``none``).
    package var fires: Bool { rule != .never }

    package static func == (lhs: Schedule, rhs: Schedule) -> Bool { lhs.rule == rhs.rule }

    package func hash(into hasher: inout Hasher) { hasher.combine(rule) }

    /// Instants outside this range (seconds since the Unix epoch) have no next fire time:
    /// years 1 to about 9900.
    static let supportedSeconds: ClosedRange<Double> = -62_135_596_800...250_000_000_000

    /// The first fire time strictly after `date`, evaluated in `zone`; nil when there is none
    /// within 50 years (or `date` is outside years 1...9900).
    ///
    /// Fractions of a second in `date` are ignored except that the result is always later
    /// than `date`. Fire times are whole minutes (whole seconds for second intervals).
    package func nextFire(after date: Date, in zone: TimeZone) -> Date? {
        fireTimes(after: date, in: zone, count: 1).first
    }

    /// The next `count` fire times after `date`, in order (fewer if the schedule ends, see
    /// `nextFire(after:in:)`). Equal to chaining `nextFire`, but faster.
    package func fireTimes(after date: Date, in zone: TimeZone, count: Int) -> [Date] {
        let seconds = date.timeIntervalSince1970
        guard count > 0, Self.supportedSeconds.contains(seconds) else { return [] }
        let base = Int64(seconds.rounded(.down))
        var result: [Date] = []
        result.reserveCapacity(min(count, 1_024))
        switch rule {
        case .never:
            break
        case .interval(let period):
            var next = (CronCivil.floorDiv(base, period) + 1) * period
            for _ in 0..<count {
                result.append(Date(timeIntervalSince1970: TimeInterval(next)))
                next += period
            }
        case .cron(let fields):
            var search = CronSearch(fields: fields, zone: zone, start: base)
            // A fixed-time search restarted inside the second copy of a repeated hour can
            // yield times before `date` (their first copies): skip those, as they already ran.
            var skipped = 0
            while result.count < count, let next = search.next() {
                if next > base {
                    result.append(Date(timeIntervalSince1970: TimeInterval(next)))
                } else {
                    skipped += 1
                    if skipped > 10_000 { break }
                }
            }
        }
        return result
    }
}
