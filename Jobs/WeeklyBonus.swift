public import Foundation
public import HearthKit

/// `weekly-bonus` (docs/jobs/weekly-bonus.md#rules, campus app): pays `amount` points to every eligible user for
/// the ISO week before the one containing `T` (in the job's zone), once per user and week.
///
/// - The week's id is `YYYY-Www` with the ISO week-numbering year (2026-12-28 is in
///   `2026-W53`, 2027-01-04 starts `2027-W01`).
/// - `eligibility = "active"`: users whose `lastActive` is at or after that week's Monday
///   00:00 local; `"all"`: every user.
/// - Each payment is `transactions/weekly-bonus-{weekId}-{userId}` (a user who already has it
///   is skipped, so re-running pays nothing twice) plus `points` and `totalPointsEarned` on
///   the user (missing ones read as the campus app's default, 500), in the same commit.
/// - One `bonus.paid` event per run that paid anyone: `{week, users, points}`. Its id is
///   `bonus.paid-{weekId}`; a later run that pays more users for the same week (new users)
///   gets `bonus.paid-{weekId}-after-{N}`, N being the users paid before, so ids stay unique.
public struct WeeklyBonus: Job {
    static let amountParameter = Parameter.integer("amount", default: 50, in: 1...1_000_000, help: "points paid to each eligible user")
    static let eligibilityParameter = Parameter.string(
        "eligibility", default: "active", allowed: ["active", "all"], help: "\"active\": users active since the week's Monday; \"all\": every user")

    public static let descriptor = JobDescriptor(
        name: "weekly-bonus",
        summary: "Pay the weekly bonus for the ISO week that ended: a bonus transaction and points per eligible user.",
        defaultSchedule: "5 0 * * MON",
        parameters: [amountParameter, eligibilityParameter],
        reads: ["users", "transactions"],
        writes: ["transactions", "users"]
    )

    let amount: Int64
    let activeOnly: Bool

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        amount = parameters[Self.amountParameter]
        activeOnly = parameters[Self.eligibilityParameter] == "active"
    }

    /// The ISO week before the one containing `time` in `zone`: its Monday and `YYYY-Www` id.
    public static func weekPaid(at time: Date, in zone: TimeZone) -> (monday: LocalDate, id: String) {
        let today = LocalDate(time, in: zone)
        let monday = today.adding(days: 1 - today.isoWeekday).adding(days: -7)
        return (monday, monday.isoWeekID)
    }

    public func run(_ context: JobContext) async throws {
        let (monday, weekID) = Self.weekPaid(at: context.logicalTime, in: context.timeZone)
        let weekStart = monday.startOfDay(in: context.timeZone)
        let prefix = "weekly-bonus-\(weekID)-"
        let paid = Set(try context.store.documentIDs(in: "transactions").filter { $0.hasPrefix(prefix) })

        // Users are kept without their documents' content; the paid ones are read again, a
        // chunk at a time, to be updated (``JobContext/reread(_:chunkSize:_:)``).
        let users = try await context.decode("users") { d throws(FieldError) in
            var user = try CampusUser(d)
            user.document.object = JSONObject()
            return (user: user, lastActive: try d.timestamp("lastActive"))
        }
        let now = Timestamp.json(context.startTime)
        var paying: [CampusUser] = []
        for (u, lastActive) in users {
            if activeOnly {
                guard let lastActive, lastActive >= weekStart else { continue }
            }
            let txID = prefix + u.id
            if paid.contains(txID) { continue }
            guard (try? DocumentPath("transactions", txID)) != nil else {
                context.warn("users/\(u.id).json: not paid; the id \"\(txID)\" is too long for a document id")
                continue
            }
            paying.append(u)
        }
        var count: Int64 = 0
        try await context.reread(paying.map(\.document)) { i, document in
            let u = paying[i]
            guard let document else {
                // Valid when first read, unreadable now: another writer is at it.
                context.warn("users/\(u.id).json: not paid; it changed while the job ran and is no longer readable")
                return
            }
            context.create(DocumentPath(unchecked: ["transactions", prefix + u.id]), JSONObject([
                ("type", "bonus"), ("fromUserId", .null), ("toUserId", .string(u.id)), ("amount", .int(amount)),
                ("message", .string("Weekly bonus for \(weekID)")), ("status", "completed"), ("createdAt", now), ("completedAt", now),
                ("fromUserName", .null), ("toUserName", .string(u.name)), ("fromUsername", .null), ("toUsername", .string(u.username)),
            ]))
            context.update(document) { o in
                o["points"] = .int(u.points + amount)
                o["totalPointsEarned"] = .int(u.totalPointsEarned + amount)
            }
            count += 1
        }
        guard count > 0 else { return }
        let eventID = paid.isEmpty ? "bonus.paid-\(weekID)" : "bonus.paid-\(weekID)-after-\(paid.count)"
        context.queue(.event("bonus.paid", id: eventID, data: JSONObject([
            ("week", .string(weekID)), ("users", .int(count)), ("points", .int(count * amount)),
        ])))
    }
}
