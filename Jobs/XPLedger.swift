import HearthKit

/// The users' XP accounts (`userXP/{userId}`) as one run sees them, and the one way jobs
/// award XP (docs/jobs/xp-and-levels.md, used by `xp-award`, `achievement-unlock` and `award-xp`).
///
/// An award works like the apps' own `awardXP`: `previousTotal` / `previousLevel` are the
/// values stored before the award (never recomputed from the tier table), `newTotal` adds the
/// amount and `newLevel` / `xpToNextLevel` come from ``XPLevels``. Several awards to one user
/// in a run chain: each starts where the previous one ended. Every award creates its
/// `xpTransactions/{id}` document and updates (or creates, at 0 XP / level 1) the user's
/// `userXP` document in the run's changeset right away.
struct XPLedger {
    /// One award, as written to `xpTransactions/{id}`.
    struct Award: Sendable, Equatable {
        var id: String
        var userID: String
        var amount: Int64
        var source: String
        var sourceID: String
        var description: String
        var previousTotal: Int64
        var newTotal: Int64
        var previousLevel: Int64
        var newLevel: Int64
    }

    private struct Account: Sendable {
        /// The document as read; nil when the user has none yet (it is created).
        var document: Document?
        var totalXP: Int64
        var currentLevel: Int64
    }

    private var accounts: [String: Account] = [:]
    /// Every award made by this run, in order.
    private(set) var awards: [Award] = []

    /// Loads every `userXP` document. A wrong-typed `totalXP` or `currentLevel` makes that
    /// document invalid input: its user gets no XP this run (see ``canAward(_:context:)``).
    /// A missing `totalXP` reads as 0, a missing `currentLevel` as the tier of the total.
    init(context: JobContext) async throws {
        for (id, a) in try await context.decode("userXP", Self.account) { accounts[id] = a }
    }

    /// Loads the `userXP` documents of `userIDs` only (a call's one user), with the same rules;
    /// an id that cannot name a document is left out (``canAward(_:context:)`` is false for it).
    init(context: JobContext, users userIDs: [String]) async throws {
        let paths = userIDs.compactMap { try? DocumentPath("userXP", $0) }
        for (id, a) in try await context.decode(paths, Self.account) { accounts[id] = a }
    }

    /// A `userXP` document's account, by user id.
    private static func account(_ d: Document) throws(FieldError) -> (String, Account)? {
        let total = try d.int("totalXP") ?? 0
        let level = try d.int("currentLevel") ?? Int64(XPLevels.tier(for: total).level)
        return (d.id, Account(document: d, totalXP: total, currentLevel: level))
    }

    /// Total XP of `userID` including this run's awards (0 without a `userXP` document).
    func totalXP(_ userID: String) -> Int64 { accounts[userID]?.totalXP ?? 0 }

    /// Current level of `userID` including this run's awards (1 without a `userXP` document).
    func level(_ userID: String) -> Int64 { accounts[userID]?.currentLevel ?? 1 }

    /// Records that a decision rests on `userID`'s XP account as this run read it: its
    /// document, or its absence (``JobContext/depend(on:)``).
    func dependOnAccount(_ userID: String, context: JobContext) {
        if let document = accounts[userID]?.document {
            context.depend(on: document)
        } else if let path = try? DocumentPath("userXP", userID) {
            context.depend(onAbsent: path)
        }
    }

    /// False when the user's `userXP` document cannot be written (it is invalid input, or the
    /// id cannot name a document), so no XP may be awarded to them.
    func canAward(_ userID: String, context: JobContext) -> Bool {
        guard let path = try? DocumentPath("userXP", userID) else { return false }
        return !context.isInvalid(path)
    }

    /// Awards `amount` XP to `userID`: records `xpTransactions/{transactionID}` and the new
    /// `userXP` values in the changeset. The caller checks ``canAward(_:context:)`` and that
    /// the transaction id is free.
    @discardableResult
    mutating func award(
        _ amount: Int64, to userID: String, source: String, sourceID: String, description: String,
        transactionID: String, context: JobContext
    ) throws -> Award {
        let txPath = try DocumentPath("xpTransactions", transactionID)
        let accountPath = try DocumentPath("userXP", userID)
        var account = accounts[userID] ?? Account(document: nil, totalXP: 0, currentLevel: 1)
        let newTotal = account.totalXP + amount
        let newLevel = Int64(XPLevels.tier(for: newTotal).level)
        let award = Award(
            id: transactionID, userID: userID, amount: amount, source: source, sourceID: sourceID, description: description,
            previousTotal: account.totalXP, newTotal: newTotal, previousLevel: account.currentLevel, newLevel: newLevel)
        account.totalXP = newTotal
        account.currentLevel = newLevel
        accounts[userID] = account
        awards.append(award)

        let now = Timestamp.json(context.startTime)
        context.create(txPath, JSONObject([
            ("userId", .string(userID)), ("amount", .int(amount)), ("source", .string(source)), ("sourceId", .string(sourceID)),
            ("description", .string(description)), ("previousTotal", .int(award.previousTotal)), ("newTotal", .int(newTotal)),
            ("previousLevel", .int(award.previousLevel)), ("newLevel", .int(newLevel)), ("createdAt", now),
        ]))
        let toNext = XPLevels.xpToNextLevel(newTotal)
        if let doc = account.document {
            context.update(doc) { o in
                if o["userId"]?.isNull ?? true { o["userId"] = .string(userID) }
                o["totalXP"] = .int(newTotal)
                o["currentLevel"] = .int(newLevel)
                o["xpToNextLevel"] = .int(toNext)
                o["lastUpdated"] = now
            }
        } else {
            context.create(accountPath, JSONObject([
                ("userId", .string(userID)), ("totalXP", .int(newTotal)), ("currentLevel", .int(newLevel)),
                ("xpToNextLevel", .int(toNext)), ("lastUpdated", now), ("createdAt", now),
            ]))
        }
        return award
    }
}
