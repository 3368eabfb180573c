import Foundation
public import HearthKit

/// `gift-settle` (docs/jobs/gift-settle.md#rules, campus app): settles every pending gift the app
/// recorded in `transactions`, atomically, as the app's own `sendGift` would have.
///
/// - Pending gifts (`type == "gift"`, `status == "pending"`) are taken in `createdAt` order
///   (absent or unparsable: after all dated ones), ties by id; each sees the balances the
///   earlier ones left, so points received earlier in the run can be given on.
/// - A gift **fails** (`status: "failed"`, `failureReason`, `failedAt: S`, nothing else) on the
///   first of the codes of ``Failure`` (docs/jobs/gift-settle.md#failure-codes).
/// - A gift **settles**: sender `points −= amount`, `totalPointsGifted += amount`,
///   `giftsGiven += 1`; receiver `points += amount`, `totalPointsEarned += amount`,
///   `giftsReceived += 1` (missing fields start from the decoder defaults); the transaction gets
///   `status: "completed"`, `completedAt: S` and the four cached names; the receiver gets
///   `notifications/gift-{id}` and its push (``GiftSettlement``, which `send-gift` shares).
///   Each user document is written once, with its final figures, and only when they changed.
/// - A gift whose sender or receiver document is invalid input stays pending, with a warning.
/// - Events `gift.completed-{id}` and `gift.failed-{id}`.
///
/// Only the users that pending gifts name are read (not the whole collection), and of
/// `transactions` only the files that changed since the last run turned them down, so the job
/// that runs every minute costs a listing and a `stat` of `transactions` plus its pending gifts.
/// A run started by writes (``JobContext/changes``) reads only the transactions written, the
/// users and notifications their gifts name and, with `requireFriendship`, those users'
/// friendships (docs/jobs/gift-settle.md#triggered-runs).
public struct GiftSettle: Job {
    static let expireAfterParameter = Parameter.duration(
        "expireAfter", default: .seconds(7 * 86_400), help: "a pending gift created longer than this before T fails as expired")
    static let requireFriendshipParameter = Parameter.boolean(
        "requireFriendship", default: false, help: "gifts only between users with an accepted friendships document")
    static let maxAmountParameter = Parameter.integer("maxAmount", default: 0, min: 0, help: "largest amount one gift may move (0 = no limit)")

    public static let descriptor = JobDescriptor(
        name: "gift-settle",
        summary: "Settle pending gifts atomically: balances in order, failures with a reason, the receiver's notification and push.",
        defaultSchedule: "* * * * *",
        parameters: [expireAfterParameter, requireFriendshipParameter, maxAmountParameter],
        reads: ["transactions", "users", "friendships"],
        writes: ["transactions", "users", "notifications"],
        triggers: ["transactions"],
        ordered: true
    )

    static let notificationType = GiftSettlement.notificationType
    /// The memo of the transactions that are not pending gifts; rename it when that rule changes.
    static let pendingGiftsMemo = "pending-gifts-v1"
    /// The transactions the scan keeps: `type` is the string `"gift"` and `status` the string `"pending"`.
    static let pendingGifts = ScanFilter([.equals(field: "type", value: "gift"), .equals(field: "status", value: "pending")])

    /// The failure codes, in the order they are checked (docs/jobs/gift-settle.md#failure-codes).
    enum Failure: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidAmount = "invalid_amount"
        case overLimit = "over_limit"
        case selfGift = "self_gift"
        case expired
        case unknownSender = "unknown_sender"
        case unknownReceiver = "unknown_receiver"
        case notFriends = "not_friends"
        case insufficientPoints = "insufficient_points"
    }

    let expireAfter: TimeInterval
    let requireFriendship: Bool
    let maxAmount: Int64
    let notificationsAllowed: Bool
    let provider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        expireAfter = DurationFormat.seconds(parameters[Self.expireAfterParameter])
        requireFriendship = parameters[Self.requireFriendshipParameter]
        maxAmount = parameters[Self.maxAmountParameter]
        notificationsAllowed = environment.notificationTypes.contains(Self.notificationType)
        provider = environment.pushProvider
    }

    /// A pending gift as the app recorded it; fields are checked when it is settled (a bad
    /// request fails with a code, it is not invalid input).
    struct Gift: Sendable {
        /// Path and version only: the document is read again when the gift is written
        /// (``JobContext/reread(_:chunkSize:_:)``), so the run never holds every pending gift whole.
        var document: Document
        var createdAt: Date?
        var from: String?
        var to: String?
        var amount: Int64?
        /// The fields as read, for `gift.failed`.
        var rawFrom: JSONValue
        var rawTo: JSONValue
        var rawAmount: JSONValue

        init(_ d: Document) {
            document = d.pathAndVersion
            createdAt = d["createdAt"].flatMap(Timestamp.date(from:))
            from = d["fromUserId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            to = d["toUserId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            amount = GiftSettlement.amount(d["amount"])
            rawFrom = d["fromUserId"] ?? .null
            rawTo = d["toUserId"] ?? .null
            rawAmount = d["amount"] ?? .null
        }

        var id: String { document.id }

        static func ordered(_ a: Gift, _ b: Gift) -> Bool {
            switch (a.createdAt, b.createdAt) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.id < b.id
            }
        }
    }

    typealias Account = GiftSettlement.Account

    /// What a gift's transaction becomes.
    enum Outcome {
        case failed(Failure)
        case completed(GiftSettlement)
    }

    /// Up to this many users named, a full run looks their friendships up by `userId1` (a store
    /// search where there is one) rather than reading the whole collection.
    static let friendshipSearchLimit = 1000

    public func run(_ context: JobContext) async throws {
        let T = context.logicalTime
        let S = context.startTime
        let now = Timestamp.json(S)
        // Lenient on type and status: a transaction that is not a pending gift is never this
        // job's business, whatever its other fields hold. That depends on the document alone,
        // so the transactions turned down once are not read again while unchanged
        // (docs/storage/reject-memos.md): the every-minute run stats them instead, and on
        // PostgreSQL the filter is a `WHERE` on the stored document.
        var gifts: [Gift]
        if let changes = context.changes {
            // Started by writes: only the transactions written since the last run took its
            // changes, by path; the same filter keeps the pending gifts among them. A pending
            // gift not among them waits for a run that reads everything (docs/jobs/gift-settle.md#triggered-runs).
            let written = changes.paths(in: "transactions").filter { $0.collection == "transactions" }
            gifts = try await context.decode(written) { d throws(FieldError) -> Gift? in Self.pendingGifts.matches(d) ? Gift(d) : nil }
        } else {
            gifts = try await context.decode("transactions", memo: Self.pendingGiftsMemo, filter: Self.pendingGifts) { d throws(FieldError) -> Gift? in
                Gift(d)
            }
        }
        guard !gifts.isEmpty else { return }
        gifts.sort(by: Gift.ordered)

        // The users the gifts name, and nobody else.
        var named = Set<String>()
        for g in gifts {
            for id in [g.from, g.to] { if let id, DocumentPath.isValid(name: id) { named.insert(id) } }
        }
        let provider = self.provider
        let paths = named.sorted().map { DocumentPath(unchecked: ["users", $0]) }
        var accounts: [String: Account] = [:]
        for a in try await context.decode(paths, { d throws(FieldError) in try Account(d, provider: provider) }) { accounts[a.document.id] = a }

        // Notifications already at the ids this run may create (read on all cores; absent ones
        // cost a failed open each).
        var existingNotifications = Set<String>()
        if notificationsAllowed {
            let candidates = gifts.compactMap { try? DocumentPath("notifications", "gift-\($0.id)") }
            existingNotifications = Set(try await context.decode(candidates) { d throws(FieldError) in d.id })
        }

        var friendships = Friendships()
        if requireFriendship {
            let pairOf: @Sendable (Document) throws(FieldError) -> Friendship? = { d throws(FieldError) in try Friendship(d) }
            let found: [Friendship]
            if context.changes != nil || named.count <= Self.friendshipSearchLimit {
                // A few gifts: the friendships whose `userId1` is a user they name (each pair
                // of them is found whichever of the two is `userId1`), by a store search where
                // there is one, not the whole collection.
                found = try await context.decode("friendships", filter: ScanFilter([.oneOf(field: "userId1", values: named)]), pairOf)
            } else {
                found = try await context.decode("friendships", pairOf)
            }
            for f in found { friendships.add(f) }
        }

        let oldest = T.addingTimeInterval(-expireAfter)
        var changed = Set<String>()
        if !notificationsAllowed { context.warn(GiftSettlement.notificationTypeMissing) }
        // Transactions are written after the loop, read again a chunk at a time, in the gifts'
        // order; one that is no longer readable fails the run (its balances moved with it).
        var outcomes: [(gift: Int, outcome: Outcome)] = []
        for (i, g) in gifts.enumerated() {
            switch judge(g, accounts: accounts, friendships: friendships, oldest: oldest, context: context) {
            case .fail(let failure):
                fail(g, failure, context: context)
                outcomes.append((i, .failed(failure)))
            case .leavePending(let invalidFiles):
                context.warn("\(g.document.path.relativeFile): left pending because \(invalidFiles) is invalid (see its warning); it settles once that is fixed")
            case .settle(let settlement):
                accounts[settlement.sender.id] = settlement.sender
                accounts[settlement.receiver.id] = settlement.receiver
                changed.insert(settlement.sender.id)
                changed.insert(settlement.receiver.id)
                // The id is deterministic; a notification already there (a gift re-opened by hand) is kept.
                settlement.announce(notify: notificationsAllowed && !existingNotifications.contains("gift-\(g.id)"), context: context)
                outcomes.append((i, .completed(settlement)))
            }
        }
        // Each transaction and user is written once, so the writes run on all cores.
        let settled = outcomes
        let giftDocuments = gifts.map(\.document)
        try await context.rereadConcurrently(settled.map { giftDocuments[$0.gift] }) { i, document in
            let (gift, outcome) = settled[i]
            guard let document else { throw DocumentChangedError(path: giftDocuments[gift].path) }
            context.update(document) { o in
                switch outcome {
                case .failed(let failure):
                    o["status"] = "failed"
                    o["failureReason"] = .string(failure.rawValue)
                    o["failedAt"] = now
                case .completed(let settlement):
                    settlement.complete(&o)
                }
            }
        }

        // Each user once, with the figures the last gift left (only fields that changed; a
        // missing field is written, since it moved from its default).
        let written = changed.sorted().compactMap { accounts[$0] }
        try await context.rereadConcurrently(written.map(\.document)) { i, document in
            let a = written[i]
            guard let document else { throw DocumentChangedError(path: a.document.path) }
            context.update(document) { o in GiftSettlement.writeFigures(of: a, into: &o) }
        }
    }

    /// What happens to one pending gift, given the balances the gifts before it left.
    enum Verdict {
        case fail(Failure)
        /// A user document it needs is invalid input (the files, for the warning).
        case leavePending(String)
        /// The gift moved: its users with their new figures.
        case settle(GiftSettlement)
    }

    /// The rules of docs/jobs/gift-settle.md#failure-codes, in order. Each verdict records what
    /// it rests on beyond the gift (docs/jobs/gift-settle.md#what-a-verdict-rests-on): a user
    /// found absent, the pair's friendships, the balances; if one changes before the commit,
    /// the run starts again on the new state.
    private func judge(_ g: Gift, accounts: [String: Account], friendships: Friendships, oldest: Date, context: JobContext) -> Verdict {
        guard let from = g.from, let to = g.to, let createdAt = g.createdAt, DocumentPath.isValid(name: from), DocumentPath.isValid(name: to) else {
            return .fail(.invalidRequest)
        }
        guard let amount = g.amount else { return .fail(.invalidAmount) }
        if maxAmount > 0, amount > maxAmount { return .fail(.overLimit) }
        if from == to { return .fail(.selfGift) }
        if createdAt < oldest { return .fail(.expired) }
        let invalid = [from, to].filter { context.isInvalid(DocumentPath(unchecked: ["users", $0])) }
        if !invalid.isEmpty { return .leavePending(invalid.map { "users/\($0).json" }.joined(separator: " and ")) }
        guard let sender = accounts[from] else {
            context.depend(onAbsent: DocumentPath(unchecked: ["users", from]))
            return .fail(.unknownSender)
        }
        guard let receiver = accounts[to] else {
            context.depend(onAbsent: DocumentPath(unchecked: ["users", to]))
            return .fail(.unknownReceiver)
        }
        if requireFriendship {
            let pair = Pair(from, to)
            context.depend(on: friendships.documents[pair] ?? [])
            if !friendships.accepted.contains(pair) { return .fail(.notFriends) }
        }
        context.depend(on: sender.document)
        if sender.points < amount { return .fail(.insufficientPoints) }
        context.depend(on: receiver.document)
        // An amount within the sender's balance can still overflow the receiver's figures.
        guard let settlement = GiftSettlement(transactionID: g.id, amount: amount, sender: sender, receiver: receiver, startTime: context.startTime) else {
            context.warn("\(g.document.path.relativeFile): amount \(amount) would overflow a balance; failed as invalid_amount")
            return .fail(.invalidAmount)
        }
        return .settle(settlement)
    }

    /// The failed gift's event (its transaction is written after the loop).
    private func fail(_ g: Gift, _ failure: Failure, context: JobContext) {
        let now = Timestamp.json(context.startTime)
        context.queue(.event("gift.failed", id: "gift.failed-\(g.id)", data: JSONObject([
            ("transactionId", .string(g.id)), ("fromUserId", g.rawFrom), ("toUserId", g.rawTo),
            ("amount", g.rawAmount), ("failureReason", .string(failure.rawValue)), ("failedAt", now),
        ])))
    }
}
