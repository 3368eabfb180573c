public import Foundation

/// A calendar date without a time (`2026-11-21`), for day arithmetic in a time zone.
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The local date of `date` in `zone`.
    public init(_ date: Date, in zone: TimeZone) {
        let offset = zone.secondsFromGMT(for: date)
        let secs = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offset)
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let (y, m, d) = Timestamp.civil(fromDays: days)
        self.init(year: Int(y), month: Int(m), day: Int(d))
    }

    /// Parses `YYYY-MM-DD`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, Int64(d) <= Timestamp.daysInMonth(Int64(y), Int64(m))
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { Int(Timestamp.daysFromCivil(Int64(year), Int64(month), Int64(day))) }

    public init(dayNumber: Int) {
        let (y, m, d) = Timestamp.civil(fromDays: Int64(dayNumber))
        self.init(year: Int(y), month: Int(m), day: Int(d))
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var isoWeekday: Int { ((dayNumber + 3) % 7 + 7) % 7 + 1 }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.dayNumber < b.dayNumber }

    public var description: String {
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return "\(year)-\(m)-\(d)"
    }

    /// The instant this date starts (00:00 local) in `zone`; if midnight does not exist
    /// (a DST gap at midnight), the first instant of the day.
    public func startOfDay(in zone: TimeZone) -> Date {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = zone
        let comps = DateComponents(year: year, month: month, day: day)
        return cal.date(from: comps) ?? Date(timeIntervalSince1970: Double(dayNumber) * 86400)
    }

    /// ISO-8601 week-numbering year and week (`2026-12-28` → 2026, 53).
    public var isoWeek: (year: Int, week: Int) {
        let thursday = adding(days: 4 - isoWeekday)
        let jan1 = LocalDate(year: thursday.year, month: 1, day: 1)
        return (thursday.year, (thursday.dayNumber - jan1.dayNumber) / 7 + 1)
    }

    /// `2026-W47`.
    public var isoWeekID: String {
        let (y, w) = isoWeek
        return "\(y)-W\(w < 10 ? "0" : "")\(w)"
    }
}
