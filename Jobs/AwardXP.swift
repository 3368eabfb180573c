import Foundation
public import HearthKit

/// `award-xp` (docs/jobs/award-xp.md#rules, skill-trading app): the app's
/// `awardXP(userId:amount:source:sourceId:description:)` as a callable function
/// (docs/callables.md), for the sources a client reports — a daily login, a completed profile, a
/// skill practised — with the amounts and the limits decided here. The caller gives `{source,
/// sourceId?}` and gets the app's `XPAwardResult`.
///
/// - Each award has a deterministic id (``Award``): once a day per login, once ever per profile,
///   once a day per skill, and at most `practicePerDay` skills a day. An award already made, or
///   over the day's limit, is **not awarded**: nothing written, the current figures answered.
/// - Otherwise `xpTransactions/{id}` and `userXP/{uid}` are written in one commit through
///   ``XPLedger``, exactly as `xp-award` writes an award (docs/jobs/xp-and-levels.md).
/// - D, the day, is T's date in the job's time zone.
///
/// Reads the caller's `userXP` document and the transaction at the award's id; for a skill
/// practice also the **listing** of `xpTransactions` ids (the store has no prefix listing, so
/// every id of the collection is listed and those starting `skill_practice-{uid}-{D}-` kept —
/// no document but the ones counted is read; a listing costs in proportion to the collection's
/// size: docs/jobs/award-xp.md#what-a-call-reads).
public struct AwardXP: Job {
    static let dailyLoginParameter = Parameter.integer("dailyLogin", default: 50, in: 1...1_000_000, help: "XP for the first login of a day")
    static let profileCompletionParameter = Parameter.integer(
        "profileCompletion", default: 100, in: 1...1_000_000, help: "XP for completing the profile (once per user)")
    static let skillPracticeParameter = Parameter.integer(
        "skillPractice", default: 75, in: 1...1_000_000, help: "XP for practising a skill (once a day per skill)")
    static let practicePerDayParameter = Parameter.integer(
        "practicePerDay", default: 3, in: 0...1000, help: "skill practices awarded per user and day (0: none)")

    public static let descriptor = JobDescriptor(
        name: "award-xp",
        summary: "The app's awardXP as a callable: XP for a daily login, a completed profile or a skill practice, never twice.",
        defaultSchedule: "",
        parameters: [dailyLoginParameter, profileCompletionParameter, skillPracticeParameter, practicePerDayParameter],
        reads: ["userXP", "xpTransactions"],
        writes: ["userXP", "xpTransactions"],
        callable: true,
        callAuth: .required
    )

    let dailyLogin: Int64
    let profileCompletion: Int64
    let skillPractice: Int64
    let practicePerDay: Int64

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        dailyLogin = parameters[Self.dailyLoginParameter]
        profileCompletion = parameters[Self.profileCompletionParameter]
        skillPractice = parameters[Self.skillPracticeParameter]
        practicePerDay = parameters[Self.practicePerDayParameter]
    }

    public func run(_ context: JobContext) async throws {
        let call = try context.requireCall()
        let uid = try call.requireUID()
        let day = LocalDate(context.logicalTime, in: context.timeZone)
        let award = try Award(call.data, uid: uid, day: day, amounts: self)
        guard let transactionPath = try? DocumentPath("xpTransactions", award.id) else {
            throw CallError(.invalidArgument, "This award cannot be recorded under your user id: the record's id would not be a valid document id.", reason: Award.invalidRequest)
        }

        var ledger = try await XPLedger(context: context, users: [uid])
        guard ledger.canAward(uid, context: context) else {
            throw CallError(.failedPrecondition, "Your XP record is damaged and cannot be used until it is repaired.", reason: "invalid_document")
        }

        // Never twice: the award's own id.
        if let existing = try context.document(transactionPath) {
            context.depend(on: existing)
            return notAwarded(uid, ledger: ledger, context: context)
        }
        if context.isInvalid(transactionPath) { return notAwarded(uid, ledger: ledger, context: context) }
        context.depend(onAbsent: transactionPath)

        // The day's limit of skill practices: the ones counted, as read.
        if let prefix = award.dailyPrefix {
            let store = context.store
            let ids = try await BlockingIO.run { () throws(StoreError) in try store.documentIDs(in: "xpTransactions") }
            let counted = ids.filter { $0.hasPrefix(prefix) }.compactMap { try? DocumentPath("xpTransactions", $0) }
            context.depend(on: try await context.decode(counted) { d throws(FieldError) in d.pathAndVersion })
            if counted.count >= practicePerDay { return notAwarded(uid, ledger: ledger, context: context) }
        }

        // The user's XP document is written with every award: two calls for one user never both commit.
        let made = try ledger.award(
            award.amount, to: uid, source: award.source, sourceID: award.sourceID, description: award.description,
            transactionID: award.id, context: context)
        context.answer(Self.result(
            awarded: true, previousXP: made.previousTotal, newXP: made.newTotal, previousLevel: made.previousLevel, newLevel: made.newLevel))
    }

    /// Answers the user's figures as they are, with nothing written; the answer rests on them.
    private func notAwarded(_ uid: String, ledger: XPLedger, context: JobContext) {
        ledger.dependOnAccount(uid, context: context)
        let xp = ledger.totalXP(uid)
        let level = ledger.level(uid)
        context.answer(Self.result(awarded: false, previousXP: xp, newXP: xp, previousLevel: level, newLevel: level))
    }

    /// The app's `XPAwardResult`: `{awarded, previousXP, newXP, previousLevel, newLevel, leveledUp}`.
    static func result(awarded: Bool, previousXP: Int64, newXP: Int64, previousLevel: Int64, newLevel: Int64) -> JSONValue {
        .object(JSONObject([
            ("awarded", .bool(awarded)), ("previousXP", .int(previousXP)), ("newXP", .int(newXP)),
            ("previousLevel", .int(previousLevel)), ("newLevel", .int(newLevel)), ("leveledUp", .bool(newLevel > previousLevel)),
        ]))
    }
}
