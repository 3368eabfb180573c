public import Foundation

/// Reading and writing the timestamp forms of docs/data-directory.md#documents.
///
/// Read: ISO-8601 (`2026-11-21T09:30:00Z`, optional fraction, `Z` or `±HH:MM`/`±HHMM`),
/// firebase-admin's `{"_seconds": S, "_nanoseconds": N}` and `{"seconds": S, "nanos": N}`.
/// Write: ISO-8601 UTC with milliseconds, `2026-11-21T09:30:00.000Z`.
public enum Timestamp {
    /// The date in `value`, or nil when it is not one of the accepted forms.
    public static func date(from value: JSONValue) -> Date? {
        switch value {
        case .string(let s): return parseISO8601(s)
        case .object(let o):
            if let s = o["_seconds"]?.numberValue {
                let n = o["_nanoseconds"]?.numberValue ?? 0
                return Date(timeIntervalSince1970: s + n / 1e9)
            }
            if let s = o["seconds"]?.numberValue {
                let n = o["nanos"]?.numberValue ?? 0
                return Date(timeIntervalSince1970: s + n / 1e9)
            }
            return nil
        default: return nil
        }
    }

    public static func json(_ date: Date) -> JSONValue { .string(format(date)) }

    /// `2026-11-21T09:30:00.000Z` (milliseconds, truncated toward the past).
    public static func format(_ date: Date) -> String {
        let totalMs = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = totalMs >= 0 ? totalMs / 86_400_000 : (totalMs - 86_399_999) / 86_400_000
        let msOfDay = totalMs - days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000
        let mi = (msOfDay / 60_000) % 60
        let s = (msOfDay / 1000) % 60
        let ms = msOfDay % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(ms, 3))Z"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Parses ISO-8601 / RFC 3339 date-times with a zone designator.
    public static func parseISO8601(_ text: String) -> Date? {
        var s = text.utf8[...]
        func digits(_ n: Int) -> Int64? {
            var v: Int64 = 0
            for _ in 0..<n {
                guard let c = s.first, c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
                s = s.dropFirst()
            }
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard s.first == c else { return false }
            s = s.dropFirst()
            return true
        }
        guard let y = digits(4), expect(0x2D), let mo = digits(2), expect(0x2D), let d = digits(2) else { return nil }
        guard let t = s.first, t == UInt8(ascii: "T") || t == UInt8(ascii: "t") || t == 0x20 else { return nil }
        s = s.dropFirst()
        guard let h = digits(2), expect(0x3A), let mi = digits(2) else { return nil }
        var sec: Int64 = 0
        var frac = 0.0
        if expect(0x3A) {
            guard let v = digits(2) else { return nil }
            sec = v
            if expect(0x2E) || expect(0x2C) {
                var scale = 0.1
                var any = false
                while let c = s.first, c >= 0x30, c <= 0x39 {
                    frac += Double(c - 0x30) * scale
                    scale /= 10
                    s = s.dropFirst()
                    any = true
                }
                if !any { return nil }
            }
        }
        guard (1...12).contains(mo), (1...31).contains(d), h <= 23, mi <= 59, sec <= 60 else { return nil }
        guard d <= daysInMonth(y, mo) else { return nil }
        var offset: Int64 = 0
        guard let z = s.first else { return nil }
        if z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
            s = s.dropFirst()
        } else if z == UInt8(ascii: "+") || z == UInt8(ascii: "-") {
            s = s.dropFirst()
            guard let oh = digits(2) else { return nil }
            _ = expect(0x3A)
            guard let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offset = (oh * 3600 + om * 60) * (z == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard s.isEmpty else { return nil }
        let days = daysFromCivil(y, mo, d)
        let seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset
        return Date(timeIntervalSince1970: Double(seconds) + frac)
    }

    static func daysInMonth(_ y: Int64, _ m: Int64) -> Int64 {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
