/// The parsed form of a 5-field cron expression: one bit set per field, plus the two flags
/// that carry Debian cron's (and `cronsim`'s) quirks.
struct CronFields: Sendable, Hashable {
    /// Bits 0...59.
    var minutes: UInt64
    /// Bits 0...23.
    var hours: UInt32
    /// Bits 1...31.
    var daysOfMonth: UInt32
    /// Bits 1...12.
    var months: UInt16
    /// Bits 0...6, 0 = Sunday (cron's `7` is folded into bit 0).
    var daysOfWeek: UInt8
    /// `true` when the day-of-month or the day-of-week field *text* starts with `*`: then a
    /// day must match both fields; otherwise (both "restricted") a day matching either one
    /// is enough (the Vixie OR rule). So `*/2` counts as unrestricted, as in cronie.
    var daysMustMatchBoth: Bool
    /// `true` when the minute or the hour field text starts with `*`: such a job follows the
    /// wall clock through DST changes (runs in both copies of a repeated hour). Otherwise it
    /// is a "fixed time" job: searched in naive local time, moved to just after a skipped
    /// hour, and run only at the first occurrence of a repeated time.
    var followsWallClock: Bool

    static let allMinutes: UInt64 = (1 << 60) - 1
    static let allHours: UInt32 = (1 << 24) - 1
    static let allDaysOfMonth: UInt32 = UInt32.max & ~1
    static let allMonths: UInt16 = ((1 << 13) - 1) & ~1
    static let allDaysOfWeek: UInt8 = (1 << 7) - 1

    @inline(__always) func hasMinute(_ m: Int64) -> Bool { minutes & (1 << UInt64(m)) != 0 }
    @inline(__always) func hasHour(_ h: Int64) -> Bool { hours & (1 << UInt32(h)) != 0 }
    @inline(__always) func hasMonth(_ m: Int64) -> Bool { months & (1 << UInt16(m)) != 0 }

    /// Whether a civil date matches the day-of-month / day-of-week fields (AND or OR rule).
    @inline(__always)
    func matchesDay(day: Int64, weekday: Int) -> Bool {
        let domMatches = daysOfMonth & (1 << UInt32(day)) != 0
        let dowMatches = daysOfWeek & (1 << UInt8(weekday)) != 0
        return daysMustMatchBoth ? (domMatches && dowMatches) : (domMatches || dowMatches)
    }

    /// The single minute when exactly one is selected (the engine then jumps straight to it).
    var onlyMinute: Int64? {
        minutes.nonzeroBitCount == 1 ? Int64(minutes.trailingZeroBitCount) : nil
    }
}
