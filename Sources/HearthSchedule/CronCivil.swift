/// Proleptic-Gregorian calendar arithmetic on plain integers ("civil" dates), used by the cron
/// engine so that walking days, hours and minutes never goes through `Calendar`.
///
/// Wall-clock instants are represented as seconds since 1970-01-01 00:00:00 *local* time
/// ("wall seconds"): the same encoding as a Unix timestamp, but in the zone's local clock.
enum CronCivil {
    static let secondsPerDay: Int64 = 86_400

    /// Floor division (rounds toward negative infinity).
    @inline(__always)
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Non-negative remainder matching `floorDiv`.
    @inline(__always)
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDiv(a, b) * b
    }

    /// Days since 1970-01-01 of the given civil date (month 1...12, day 1...31).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400                                   // 0...399
        let shiftedMonth = month > 2 ? month - 3 : month + 9            // March = 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1          // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number (days since 1970-01-01).
    static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097                                // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Day of the week, 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday).
    @inline(__always)
    static func weekday(days: Int64) -> Int {
        Int(floorMod(days + 4, 7))
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
