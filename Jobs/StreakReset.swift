import Foundation
public import HearthKit

/// `streak-reset` (docs/jobs/streak-reset.md#rules, skill-trading app): ends active streaks whose user missed a
/// day, spending streak freezes first.
///
/// - Each streak with `isActive == true` is judged in its user's zone (`users/{userId}`
///   `timeZone`, when it names an IANA zone), else in the job's zone.
/// - `today` = the local date of `T`; `covered` = the later of the local date of
///   `lastActivityDate` and `frozenThrough` (`YYYY-MM-DD`); missed days
///   `m = today − covered − 1`.
/// - `m ≤ 0`: nothing. `freezeCount ≥ m`: `m` freezes are spent and `frozenThrough`
///   becomes yesterday (the streak survives). Otherwise the streak is reset:
///   `longestStreak = max(longestStreak, currentStreak)`, `currentStreak = 0`,
///   `isActive = false`, `resetAt = S`; freezes are kept.
/// - An active streak without `lastActivityDate` is skipped with a warning. Running again the
///   same day changes nothing.
public struct StreakReset: Job {
    public static let descriptor = JobDescriptor(
        name: "streak-reset",
        summary: "Reset streaks whose user missed a day in their own time zone, spending freezes first.",
        defaultSchedule: "5 * * * *",
        reads: ["streaks", "users"],
        writes: ["streaks"]
    )

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {}

    struct Streak: Sendable {
        /// Path and version only: the content is read again for the streaks this run changes.
        var document: Document
        var userID: String?
        var lastActivity: Date?
        var frozenThrough: LocalDate?
        var freezeCount: Int64
        var currentStreak: Int64
        var longestStreak: Int64
    }

    /// What happens to one streak on `today` (pure; the rules of docs/jobs/streak-reset.md#rules).
    public enum Outcome: Sendable, Equatable {
        case nothing
        case frozen(freezeCount: Int64, frozenThrough: LocalDate)
        case reset(longestStreak: Int64)
    }

    public static func judge(today: LocalDate, lastActivity: LocalDate, frozenThrough: LocalDate?, freezeCount: Int64, currentStreak: Int64, longestStreak: Int64) -> Outcome {
        let covered = max(lastActivity, frozenThrough ?? lastActivity)
        let missed = Int64(today.dayNumber - covered.dayNumber - 1)
        if missed <= 0 { return .nothing }
        if freezeCount >= missed { return .frozen(freezeCount: freezeCount - missed, frozenThrough: today.adding(days: -1)) }
        return .reset(longestStreak: max(longestStreak, currentStreak))
    }

    public func run(_ context: JobContext) async throws {
        let streaks = try await context.decode("streaks") { d throws(FieldError) -> Streak? in
            guard try d.bool("isActive") == true else { return nil }
            var frozen: LocalDate?
            if let text = try d.string("frozenThrough") {
                guard let date = LocalDate(parsing: text) else {
                    throw FieldError(field: "frozenThrough", expected: "date \"YYYY-MM-DD\"", found: .string(text))
                }
                frozen = date
            }
            return Streak(
                document: d.pathAndVersion, userID: try d.documentID("userId"), lastActivity: try d.timestamp("lastActivityDate"), frozenThrough: frozen,
                freezeCount: try d.int("freezeCount") ?? 0, currentStreak: try d.int("currentStreak") ?? 0, longestStreak: try d.int("longestStreak") ?? 0)
        }

        // Per user: the zone (nil: the user document is invalid) and the document it came from
        // (nil: none), which a changed streak's outcome rests on (docs/jobs/streak-reset.md#what-an-outcome-rests-on).
        var zones: [String: (zone: TimeZone?, user: Document?)] = [:]
        var changes: [(streak: Document, outcome: Outcome)] = []
        for s in streaks {
            guard let last = s.lastActivity else {
                context.warn("\(s.document.path.relativeFile): active streak without lastActivityDate; skipped")
                continue
            }
            var zone = context.timeZone
            var user: (zone: TimeZone?, user: Document?)?
            if let uid = s.userID {
                if let cached = zones[uid] { user = cached } else {
                    user = try userZone(uid, fallback: context.timeZone, context: context)
                    zones[uid] = user
                }
                guard let z = user?.zone else {
                    context.warn("\(s.document.path.relativeFile): skipped because users/\(uid).json is invalid (its time zone is unknown)")
                    continue
                }
                zone = z
            }
            let today = LocalDate(context.logicalTime, in: zone)
            let outcome = Self.judge(
                today: today, lastActivity: LocalDate(last, in: zone), frozenThrough: s.frozenThrough,
                freezeCount: s.freezeCount, currentStreak: s.currentStreak, longestStreak: s.longestStreak)
            if outcome != .nothing {
                changes.append((s.document, outcome))
                if let uid = s.userID, let user {
                    if let d = user.user { context.depend(on: d) } else { context.depend(onAbsent: DocumentPath(unchecked: ["users", uid])) }
                }
            }
        }
        // Streaks are the only documents written: updating them after judging all writes the same.
        try await context.reread(changes.map(\.streak)) { i, document in
            guard let document else { return }
            Self.apply(changes[i].outcome, to: document, context: context)
        }
    }

    private static func apply(_ outcome: Outcome, to document: Document, context: JobContext) {
        switch outcome {
        case .nothing: break
        case .frozen(let count, let through):
            context.update(document) { o in
                o["freezeCount"] = .int(count)
                o["frozenThrough"] = .string(through.description)
            }
        case .reset(let longest):
            context.update(document) { o in
                o["longestStreak"] = .int(longest)
                o["currentStreak"] = 0
                o["isActive"] = false
                o["resetAt"] = Timestamp.json(context.startTime)
            }
        }
    }

    /// The zone of `users/{uid}`: its `timeZone` when that is a known IANA name, else
    /// `fallback` (also when there is no user document); nil when the document is invalid.
    /// With it, the document read (path and version; nil when there is none).
    private func userZone(_ uid: String, fallback: TimeZone, context: JobContext) throws -> (zone: TimeZone?, user: Document?) {
        let path = try DocumentPath("users", uid)
        guard let d = try context.document(path) else {
            return (context.isInvalid(path) ? nil : fallback, nil)
        }
        let kept = d.pathAndVersion
        let name: String?
        do { name = try d.string("timeZone") } catch {
            try context.reportInvalid(d, error)
            return (nil, kept)
        }
        guard let name, !name.isEmpty, let zone = TimeZone(identifier: name) else { return (fallback, kept) }
        return (zone, kept)
    }
}
