import HearthKit
/// Parses the text forms of a `Schedule`: 5-field cron, macros and `every N unit` intervals.
///
/// Field syntax and its corner cases follow Python's `cronsim` (and so cronie / Debian cron):
/// - `*`, single values, names (`JAN`...`DEC`, `SUN`...`SAT`, any case), `a-b` ranges,
///   comma lists, and steps: `*/n`, `a-b/n` (every n-th value of the range), and `a/n`
///   meaning `a-max/n`;
/// - day-of-week accepts 0-7 where both 0 and 7 are Sunday;
/// - a backwards range (`5-1`) and a step of 0 are errors;
/// - a day-of-month that no selected month has (`0 0 30 2 *`) is an error when the day
///   fields are ANDed (one of them starts with `*`), because such a job would never run.
enum CronParser {
    enum Field: Int, CaseIterable {
        case minute, hour, dayOfMonth, month, dayOfWeek

        var name: String {
            switch self {
            case .minute: "minute"
            case .hour: "hour"
            case .dayOfMonth: "day-of-month"
            case .month: "month"
            case .dayOfWeek: "day-of-week"
            }
        }

        var bounds: ClosedRange<Int> {
            switch self {
            case .minute: 0...59
            case .hour: 0...23
            case .dayOfMonth: 1...31
            case .month: 1...12
            case .dayOfWeek: 0...7
            }
        }

        var accepted: String {
            switch self {
            case .minute: "0-59, lists (1,5), ranges (1-5), steps (*/2)"
            case .hour: "0-23, lists (1,5), ranges (1-5), steps (*/2)"
            case .dayOfMonth: "1-31, lists (1,15), ranges (1-5), steps (*/2)"
            case .month: "1-12 or JAN-DEC, lists (1,7), ranges (JAN-MAR), steps (*/3)"
            case .dayOfWeek: "0-7 (0 and 7 are Sunday) or SUN-SAT, lists (1,5), ranges (MON-FRI), steps (*/2)"
            }
        }

        var names: [String] {
            switch self {
            case .month: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            case .dayOfWeek: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            default: []
            }
        }

        /// Value of `names[0]`.
        var firstNameValue: Int { self == .month ? 1 : 0 }
    }

    static let macros: [String: String] = [
        "@hourly": "0 * * * *",
        "@daily": "0 0 * * *",
        "@midnight": "0 0 * * *",
        "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *",
        "@yearly": "0 0 1 1 *",
        "@annually": "0 0 1 1 *",
    ]

    static let acceptedMacros = "@hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually"
    static let acceptedShapes =
        "a 5-field cron expression (minute hour day-of-month month day-of-week), a macro ("
        + acceptedMacros + ") or an interval (every 5 minutes, every 2 hours, every 1 day)"

    /// Longest interval accepted: ten years.
    static let maximumIntervalSeconds: Int64 = 3_650 * 86_400

    // MARK: - Whole expressions

    static func parse(_ expression: String, allowSeconds: Bool) throws(ScheduleError) -> Schedule.Rule {
        let tokens = expression.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard let first = tokens.first else {
            throw ScheduleError(
                expression: expression, field: "expression", value: expression,
                problem: "is empty", accepted: acceptedShapes)
        }
        if first.hasPrefix("@") {
            guard tokens.count == 1 else {
                throw ScheduleError(
                    expression: expression, field: "expression", value: expression,
                    problem: "has text after the macro \(first)", accepted: acceptedMacros)
            }
            guard let cron = macros[first.lowercased()] else {
                throw ScheduleError(
                    expression: expression, field: "macro", value: first,
                    problem: "is not supported", accepted: acceptedMacros)
            }
            return .cron(try parseCron(fields: cron.split(separator: " ").map(String.init), expression: expression))
        }
        if first.lowercased() == "every" {
            return .interval(seconds: try parseInterval(tokens, expression: expression, allowSeconds: allowSeconds))
        }
        guard tokens.count == 5 else {
            let hint = tokens.count == 6 ? " (a seconds field is not supported)" : ""
            throw ScheduleError(
                expression: expression, field: "expression", value: expression,
                problem: "has \(tokens.count) field\(tokens.count == 1 ? "" : "s") but a cron expression needs 5\(hint)",
                accepted: acceptedShapes)
        }
        return .cron(try parseCron(fields: tokens, expression: expression))
    }

    static func parseInterval(_ tokens: [String], expression: String, allowSeconds: Bool) throws(ScheduleError) -> Int64 {
        let units = allowSeconds ? "seconds, minutes, hours or days" : "minutes, hours or days"
        let accepted = "every N \(units) with N a whole number from 1 (e.g. every 5 minutes, every 1 day)"
        guard tokens.count == 3 else {
            throw ScheduleError(
                expression: expression, field: "interval", value: tokens.dropFirst().joined(separator: " "),
                problem: "is not of the form \"every N unit\"", accepted: accepted)
        }
        let count = tokens[1], unit = tokens[2].lowercased()
        let unitSeconds: Int64
        switch unit {
        case "second", "seconds":
            guard allowSeconds else {
                throw ScheduleError(
                    expression: expression, field: "interval", value: tokens[2],
                    problem: "is only accepted when the configuration explicitly allows second intervals",
                    accepted: accepted)
            }
            unitSeconds = 1
        case "minute", "minutes": unitSeconds = 60
        case "hour", "hours": unitSeconds = 3_600
        case "day", "days": unitSeconds = 86_400
        default:
            throw ScheduleError(
                expression: expression, field: "interval", value: tokens[2],
                problem: "is not a known unit", accepted: accepted)
        }
        guard !count.isEmpty, count.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ScheduleError(
                expression: expression, field: "interval", value: count,
                problem: "is not a whole number", accepted: accepted)
        }
        guard let n = Int64(count) else {
            throw ScheduleError(
                expression: expression, field: "interval", value: count,
                problem: "is too large (the longest interval is 3650 days)", accepted: accepted)
        }
        guard n >= 1 else {
            throw ScheduleError(
                expression: expression, field: "interval", value: count,
                problem: "is zero", accepted: accepted)
        }
        let (seconds, overflow) = n.multipliedReportingOverflow(by: unitSeconds)
        guard !overflow, seconds <= maximumIntervalSeconds else {
            throw ScheduleError(
                expression: expression, field: "interval", value: count,
                problem: "is too large (the longest interval is 3650 days)", accepted: accepted)
        }
        return seconds
    }

    // MARK: - Cron fields

    static func parseCron(fields texts: [String], expression: String) throws(ScheduleError) -> CronFields {
        var sets: [[Bool]] = []
        for field in Field.allCases {
            sets.append(try parseField(Substring(texts[field.rawValue]), field, expression: expression))
        }
        func mask<T: FixedWidthInteger>(_ values: [Bool], as: T.Type) -> T {
            var result: T = 0
            for (value, on) in values.enumerated() where on { result |= T(1) << T(value) }
            return result
        }
        var weekdays = sets[Field.dayOfWeek.rawValue]
        if weekdays[7] { weekdays[0] = true }
        weekdays[7] = false
        let fields = CronFields(
            minutes: mask(sets[0], as: UInt64.self),
            hours: mask(sets[1], as: UInt32.self),
            daysOfMonth: mask(sets[2], as: UInt32.self),
            months: mask(sets[3], as: UInt16.self),
            daysOfWeek: mask(weekdays, as: UInt8.self),
            daysMustMatchBoth: texts[2].hasPrefix("*") || texts[4].hasPrefix("*"),
            followsWallClock: texts[0].hasPrefix("*") || texts[1].hasPrefix("*"))

        if fields.daysMustMatchBoth {
            // cronsim's check: a day that no selected month has means "never".
            let firstDay = fields.daysOfMonth.trailingZeroBitCount
            let longest = (1...12).filter { fields.hasMonth(Int64($0)) }
                .map { $0 == 2 ? 29 : Int(CronCivil.daysInMonth(year: 2001, month: Int64($0))) }
                .max() ?? 31
            if firstDay > 29, firstDay > longest {
                throw ScheduleError(
                    expression: expression, field: Field.dayOfMonth.name, value: texts[2],
                    problem: "never occurs in the selected month(s) \"\(texts[3])\", so the job would never run",
                    accepted: "a day that exists in at least one selected month (February has up to 29 days; April, June, September and November 30)")
            }
        }
        return fields
    }

    /// One field, as a membership table indexed by value (size `bounds.upperBound + 1`).
    static func parseField(_ text: Substring, _ field: Field, expression: String) throws(ScheduleError) -> [Bool] {
        var table = [Bool](repeating: false, count: field.bounds.upperBound + 1)
        for value in try values(text, field, expression: expression) {
            table[value] = true
        }
        return table
    }

    private static func error(
        _ field: Field, _ value: some StringProtocol, _ problem: String, _ expression: String
    ) -> ScheduleError {
        ScheduleError(
            expression: expression, field: field.name, value: String(value), problem: problem,
            accepted: field.accepted)
    }

    /// The sorted values of one field or of one of its list items.
    private static func values(_ text: Substring, _ field: Field, expression: String) throws(ScheduleError) -> [Int] {
        if text == "*" { return Array(field.bounds) }

        if text.contains(",") {
            var result = Set<Int>()
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard !part.isEmpty else {
                    throw error(field, text, "has an empty list item", expression)
                }
                result.formUnion(try values(part, field, expression: expression))
            }
            return result.sorted()
        }

        // Quartz / cronsim extensions (L, W, #, ?) are rejected rather than misread.
        let upper = text.uppercased()
        let unsupported: Bool = switch field {
        case .dayOfWeek: upper.contains(where: { "L#?".contains($0) })
        case .dayOfMonth: upper.contains(where: { "LW#?".contains($0) })
        default: false
        }
        if unsupported {
            throw error(field, text, "uses syntax (L, W, #, ?) that this scheduler does not support", expression)
        }

        if let slash = text.firstIndex(of: "/") {
            let term = text[..<slash]
            guard !term.isEmpty else {
                throw error(field, text, "has nothing before the step (write */n, a/n or a-b/n)", expression)
            }
            let stepText = text[text.index(after: slash)...]
            guard !stepText.isEmpty, stepText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw error(field, text, "has a step that is not a whole number", expression)
            }
            guard let step = Int(stepText) else {
                throw error(field, text, "has a step that is too large", expression)
            }
            guard step > 0 else {
                throw error(field, text, "has a step of 0 (steps start at 1)", expression)
            }
            let items = try values(term, field, expression: expression)
            if items.count == 1 {
                // As in cronsim and cronie, "a/n" means "a-max/n".
                return Array(stride(from: items[0], through: field.bounds.upperBound, by: step))
            }
            return stride(from: 0, to: items.count, by: step).map { items[$0] }
        }

        if let dash = text.firstIndex(of: "-") {
            guard dash != text.startIndex, text.index(after: dash) != text.endIndex else {
                throw error(field, text, "is an incomplete range (write a-b)", expression)
            }
            let start = try value(text[..<dash], field, expression: expression)
            let end = try value(text[text.index(after: dash)...], field, expression: expression)
            guard start <= end else {
                throw error(field, text, "is a backwards range (start after end)", expression)
            }
            return Array(start...end)
        }

        return [try value(text, field, expression: expression)]
    }

    /// A single number or (month and day-of-week fields) a three-letter name, any case.
    private static func value(_ text: Substring, _ field: Field, expression: String) throws(ScheduleError) -> Int {
        if let index = field.names.firstIndex(of: text.uppercased()) {
            return field.firstNameValue + index
        }
        guard !text.isEmpty else {
            throw error(field, text, "is empty", expression)
        }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            let problem = switch field {
            case .month: "is neither a number nor a month name (JAN-DEC)"
            case .dayOfWeek: "is neither a number nor a weekday name (SUN-SAT)"
            default: "is not a number"
            }
            throw error(field, text, problem, expression)
        }
        guard let number = Int(text), field.bounds.contains(number) else {
            throw error(field, text, "is out of range", expression)
        }
        return number
    }
}
