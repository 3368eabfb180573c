/// Why a schedule expression was rejected.
///
/// The description names the part that is wrong, the offending text, the problem and what
/// would have been accepted, and quotes the whole expression, e.g.
///
///     invalid schedule "0 24 * * *": cron field "hour": value "24" is out of range;
///     accepted: 0-23, lists (1,5), ranges (1-5), steps (*/2)
///
/// (on one line). Config loading shows it as is.
package struct ScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole expression as written.
    package let expression: String
    /// The part that is wrong: a cron field (`"minute"`, `"hour"`, `"day-of-month"`,
    /// `"month"`, `"day-of-week"`), or `"interval"`, `"macro"` or `"expression"` (the
    /// overall shape, e.g. a wrong number of fields).
    package let field: String
    /// The offending text (a field, a list item, a number, a unit...).
    package let value: String
    /// What is wrong with `value`, e.g. `"is out of range"`.
    package let problem: String
    /// What would have been accepted in its place.
    package let accepted: String

    package init(expression: String, field: String, value: String, problem: String, accepted: String) {
        self.expression = expression
        self.field = field
        self.value = value
        self.problem = problem
        self.accepted = accepted
    }

    package var description: String {
        let subject: String
        switch field {
        case "expression":
            subject = problem
        case "interval", "macro":
            subject = "\(field) \"\(value)\" \(problem)"
        default:
            subject = "cron field \"\(field)\": value \"\(value)\" \(problem)"
        }
        return "invalid schedule \"\(expression)\": \(subject); accepted: \(accepted)"
    }
}
