import Foundation
public import HearthKit

/// `xp-award` (docs/jobs/xp-award.md#rules, skill-trading app): XP for completed trades (creator and
/// participant), completed user challenges, and completed collaborations (creator and every
/// participant).
///
/// - Never twice: an award is skipped when any `xpTransactions` document (whatever its id —
///   the app may have awarded it itself) has the same `userId`, `source` and `sourceId`.
/// - A user's awards apply in order of the source's `completedAt` (missing: `updatedAt`;
///   both missing: after all dated ones), ties broken by the source document's id, each
///   chaining `previousTotal` → `newTotal` through ``XPLedger``.
/// - A parameter set to 0 awards nothing for that source.
public struct XPAward: Job {
    static let tradeParameter = Parameter.integer("trade", default: 500, in: 0...1_000_000, help: "XP for each side of a completed trade")
    static let challengeParameter = Parameter.integer("challenge", default: 300, in: 0...1_000_000, help: "XP for a completed user challenge")
    static let collaborationParameter = Parameter.integer(
        "collaboration", default: 400, in: 0...1_000_000, help: "XP for the creator and each participant of a completed collaboration")

    public static let descriptor = JobDescriptor(
        name: "xp-award",
        summary: "Award XP for completed trades, challenges and collaborations (never twice).",
        defaultSchedule: "*/10 * * * *",
        parameters: [tradeParameter, challengeParameter, collaborationParameter],
        reads: ["trades", "userChallenges", "collaborations", "xpTransactions", "userXP"],
        writes: ["userXP", "xpTransactions"],
        triggers: ["trades", "userChallenges", "collaborations"]
    )

    static let tradeSource = "trade_completed"
    static let challengeSource = "challenge_completed"
    static let collaborationSource = "collaboration_completed"

    let tradeXP: Int64
    let challengeXP: Int64
    let collaborationXP: Int64

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        tradeXP = parameters[Self.tradeParameter]
        challengeXP = parameters[Self.challengeParameter]
        collaborationXP = parameters[Self.collaborationParameter]
    }

    /// One award to make, before ordering and de-duplication.
    struct Candidate: Sendable {
        var userID: String
        var amount: Int64
        var source: String
        var sourceID: String
        var description: String
        var transactionID: String
        /// `completedAt`, else `updatedAt`; nil sorts after every dated award.
        var at: Date?
        /// The source document's id (the tie-breaker).
        var sourceDocumentID: String
        /// Trades, then challenges, then collaborations (a last tie-breaker only).
        var kind: Int
        /// The source document's path and version: the award rests on it being completed
        /// (docs/jobs/xp-award.md#what-an-award-rests-on).
        var sourceDocument: Document

        static func ordered(_ a: Candidate, _ b: Candidate) -> Bool {
            switch (a.at, b.at) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: break
            }
            if a.sourceDocumentID != b.sourceDocumentID { return a.sourceDocumentID < b.sourceDocumentID }
            return a.kind < b.kind
        }
    }

    /// A source document that cannot be awarded, and why.
    struct SkipWarning: Error, Sendable {
        var message: String
    }

    /// Identifies an award for "never twice": userId + source + sourceId.
    struct AwardKey: Hashable, Sendable {
        var userID: String
        var source: String
        var sourceID: String
    }

    /// `completedAt`, else `updatedAt`, else nil.
    static func completionTime(_ d: Document) throws(FieldError) -> Date? {
        if let c = try d.timestamp("completedAt") { return c }
        return try d.timestamp("updatedAt")
    }

    /// A user id field; `""` reads as absent (an open trade's `participantId`).
    static func userID(_ d: Document, _ field: String) throws(FieldError) -> String? {
        if try d.string(field)?.isEmpty ?? true { return nil }
        return try d.documentID(field)
    }

    public func run(_ context: JobContext) async throws {
        var candidates: [Candidate] = []

        if tradeXP > 0 {
            let trades = try await context.decode("trades") { d throws(FieldError) -> [Candidate]? in
                guard try d.string("status") == "completed" else { return nil }
                let at = try Self.completionTime(d)
                var users: [String] = []
                if let c = try Self.userID(d, "creatorId") { users.append(c) }
                if let p = try Self.userID(d, "participantId"), !users.contains(p) { users.append(p) }
                return users.map { u in
                    Candidate(userID: u, amount: tradeXP, source: Self.tradeSource, sourceID: d.id, description: "Trade completed",
                              transactionID: "\(Self.tradeSource)-\(d.id)-\(u)", at: at, sourceDocumentID: d.id, kind: 0,
                              sourceDocument: d.pathAndVersion)
                }
            }
            candidates += trades.joined()
        }
        if challengeXP > 0 {
            // A completed challenge without its user or challenge id cannot be awarded: warned.
            let challenges = try await context.decode("userChallenges") { d throws(FieldError) -> Result<Candidate, SkipWarning>? in
                guard try d.string("status") == "completed" else { return nil }
                let at = try Self.completionTime(d)
                let challengeID = try d.string("challengeId")
                guard let u = try Self.userID(d, "userId") else {
                    return .failure(SkipWarning(message: "\(d.path.relativeFile): completed but has no userId; no XP awarded"))
                }
                guard let challengeID, !challengeID.isEmpty else {
                    return .failure(SkipWarning(message: "\(d.path.relativeFile): completed but has no challengeId; no XP awarded"))
                }
                return .success(Candidate(userID: u, amount: challengeXP, source: Self.challengeSource, sourceID: challengeID, description: "Challenge completed",
                                          transactionID: "\(Self.challengeSource)-\(d.id)-\(u)", at: at, sourceDocumentID: d.id, kind: 1,
                              sourceDocument: d.pathAndVersion))
            }
            for r in challenges {
                switch r {
                case .success(let c): candidates.append(c)
                case .failure(let w): context.warn(w.message)
                }
            }
        }
        if collaborationXP > 0 {
            let collaborations = try await context.decode("collaborations") { d throws(FieldError) -> [Candidate]? in
                guard try d.string("status") == "completed" else { return nil }
                let at = try Self.completionTime(d)
                var users: [String] = []
                if let c = try Self.userID(d, "creatorId") { users.append(c) }
                for (i, p) in (try d.stringArray("participantIds") ?? []).enumerated() where !p.isEmpty && !users.contains(p) {
                    guard DocumentPath.isValid(name: p) else {
                        throw FieldError(field: "participantIds[\(i)]", expected: "user id", found: .string(p))
                    }
                    users.append(p)
                }
                return users.map { u in
                    Candidate(userID: u, amount: collaborationXP, source: Self.collaborationSource, sourceID: d.id, description: "Collaboration completed",
                              transactionID: "\(Self.collaborationSource)-\(d.id)-\(u)", at: at, sourceDocumentID: d.id, kind: 2,
                              sourceDocument: d.pathAndVersion)
                }
            }
            candidates += collaborations.joined()
        }
        guard !candidates.isEmpty else { return }

        // Everything already awarded, whatever the transaction's id.
        var awarded = Set<AwardKey>()
        var existingIDs = Set<String>()
        let transactions = try await context.decode("xpTransactions") { d throws(FieldError) -> (id: String, key: AwardKey?)? in
            guard let u = try d.string("userId"), let s = try d.string("source"), let sid = try d.string("sourceId") else { return (d.id, nil) }
            return (d.id, AwardKey(userID: u, source: s, sourceID: sid))
        }
        for t in transactions {
            existingIDs.insert(t.id)
            if let key = t.key { awarded.insert(key) }
        }

        var ledger = try await XPLedger(context: context)
        candidates.sort { a, b in a.userID != b.userID ? a.userID < b.userID : Candidate.ordered(a, b) }
        for c in candidates {
            let key = AwardKey(userID: c.userID, source: c.source, sourceID: c.sourceID)
            guard !awarded.contains(key) else { continue }
            guard ledger.canAward(c.userID, context: context) else { continue }
            guard let txPath = try? DocumentPath("xpTransactions", c.transactionID) else {
                context.warn("\(c.source) \(c.sourceID) for \(c.userID): not awarded; the id \"\(c.transactionID)\" is too long for a document id")
                continue
            }
            // A document already at the deterministic id (but for another award, or invalid):
            // never overwrite it.
            if existingIDs.contains(c.transactionID) || context.isInvalid(txPath) {
                context.warn("\(txPath.relativeFile): already exists with other content; \(c.source) \(c.sourceID) for \(c.userID) not awarded")
                continue
            }
            awarded.insert(key)
            context.depend(on: c.sourceDocument)
            try ledger.award(c.amount, to: c.userID, source: c.source, sourceID: c.sourceID, description: c.description,
                             transactionID: c.transactionID, context: context)
        }
    }
}
