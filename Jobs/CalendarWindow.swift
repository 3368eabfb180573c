import Foundation
import HearthKit

/// A calendar window ending at T: `[start of the ISO week (Monday 00:00) / the month containing
/// T, in the job's zone, T)`, as docs/jobs/leaderboard-rebuild.md#rules and
/// docs/jobs/xp-leaderboard.md#rules use it.
struct CalendarWindow: Sendable {
    enum Kind: Sendable {
        case week
        case month
    }

    /// The window's first instant (inclusive).
    var start: Date
    /// T (exclusive).
    var end: Date

    init(_ kind: Kind, containing t: Date, in zone: TimeZone) {
        let today = LocalDate(t, in: zone)
        let first = switch kind {
        case .week: today.adding(days: 1 - today.isoWeekday)
        case .month: LocalDate(year: today.year, month: today.month, day: 1)
        }
        start = first.startOfDay(in: zone)
        end = t
    }

    func contains(_ date: Date) -> Bool { date >= start && date < end }
}
