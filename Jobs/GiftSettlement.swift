import Foundation
import HearthKit

/// One gift settled as the campus app's own `sendGift` would settle it
/// (docs/jobs/gift-settle.md#rules, "Settle"): the one copy of that rule, shared by
/// `gift-settle` (a pending gift the app recorded) and `send-gift` (a gift an app's call makes,
/// docs/jobs/send-gift.md#rules), so that a gift leaves the same users, notification, push and
/// event whichever job settled it.
///
/// - The sender's `points −= amount`, `totalPointsGifted += amount`, `giftsGiven += 1`; the
///   receiver's `points += amount`, `totalPointsEarned += amount`, `giftsReceived += 1` (missing
///   fields start from the decoder defaults, ``Account``); written by ``writeFigures(of:into:)``.
/// - The transaction's `status: "completed"`, `completedAt: S` and the four cached names
///   (``complete(_:now:)``).
/// - `notifications/gift-{id}` and its push to the receiver, and the `gift.completed` event
///   (``announce(notify:context:)``).
struct GiftSettlement: Sendable {
    static let notificationType = "gift_received"
    /// The warning of a run that settles gifts while `gift_received` is not a notification type.
    static let notificationTypeMissing =
        "gift_received is not in [notifications].types: gifts settle, but no notification is written and nothing is pushed"

    /// The fields of a campus user a gift reads and writes (decoder defaults when missing).
    struct Account: Sendable {
        /// Path and version only: a job reads the document again when it writes it.
        var document: Document
        var name: String
        var username: String
        var points: Int64
        var totalPointsEarned: Int64
        var totalPointsGifted: Int64
        var giftsGiven: Int64
        var giftsReceived: Int64
        var tokens: [String]

        init(_ d: Document, provider: PushProviderKind) throws(FieldError) {
            document = d.pathAndVersion
            name = try d.string("name") ?? ""
            username = try d.string("username") ?? ""
            points = try d.int("points") ?? CampusUser.defaultPoints
            totalPointsEarned = try d.int("totalPointsEarned") ?? CampusUser.defaultTotalPointsEarned
            totalPointsGifted = try d.int("totalPointsGifted") ?? 0
            giftsGiven = try d.int("giftsGiven") ?? 0
            giftsReceived = try d.int("giftsReceived") ?? 0
            tokens = DeviceTokens(of: d, provider: provider).tokens
        }

        var id: String { document.id }
    }

    let transactionID: String
    let amount: Int64
    /// The sender and receiver with the gift's figures applied.
    let sender: Account
    let receiver: Account
    /// `S`, as written into the documents.
    let now: JSONValue
    let startTime: Date

    /// Moves `amount` from `sender` to `receiver`; nil when that would overflow a 64-bit figure
    /// (a balance, a total or a gift count: the jobs fail such a gift as `invalid_amount`). The
    /// caller has checked the sender's balance.
    init?(transactionID: String, amount: Int64, sender: Account, receiver: Account, startTime: Date) {
        var sender = sender
        var receiver = receiver
        let points = receiver.points.addingReportingOverflow(amount)
        let earned = receiver.totalPointsEarned.addingReportingOverflow(amount)
        let gifted = sender.totalPointsGifted.addingReportingOverflow(amount)
        let given = sender.giftsGiven.addingReportingOverflow(1)
        let received = receiver.giftsReceived.addingReportingOverflow(1)
        guard !points.overflow, !earned.overflow, !gifted.overflow, !given.overflow, !received.overflow else { return nil }
        sender.points -= amount
        sender.totalPointsGifted = gifted.partialValue
        sender.giftsGiven = given.partialValue
        receiver.points = points.partialValue
        receiver.totalPointsEarned = earned.partialValue
        receiver.giftsReceived = received.partialValue
        self.transactionID = transactionID
        self.amount = amount
        self.sender = sender
        self.receiver = receiver
        self.startTime = startTime
        now = Timestamp.json(startTime)
    }

    /// An amount as the gift rules take it: a JSON integer ≥ 1 (no fraction, no exponent, not a
    /// string); nil otherwise (`invalid_amount`).
    static func amount(_ value: JSONValue?) -> Int64? {
        if case .int(let i)? = value, i >= 1 { return i }
        return nil
    }

    /// The transaction's fields once the gift is completed: `status`, `completedAt` and the
    /// cached names (`""` for a missing one, never null). Existing keys keep their place.
    func complete(_ o: inout JSONObject) {
        o["status"] = "completed"
        o["completedAt"] = now
        o["fromUserName"] = .string(sender.name)
        o["toUserName"] = .string(receiver.name)
        o["fromUsername"] = .string(sender.username)
        o["toUsername"] = .string(receiver.username)
    }

    /// Writes `account`'s figures into its document: only the fields that changed (a missing
    /// field is written, since it moved from its default).
    static func writeFigures(of a: Account, into o: inout JSONObject) {
        set(&o, "points", a.points, default: CampusUser.defaultPoints)
        set(&o, "totalPointsEarned", a.totalPointsEarned, default: CampusUser.defaultTotalPointsEarned)
        set(&o, "totalPointsGifted", a.totalPointsGifted, default: 0)
        set(&o, "giftsGiven", a.giftsGiven, default: 0)
        set(&o, "giftsReceived", a.giftsReceived, default: 0)
    }

    /// Writes `value` unless the field already reads as it (a missing field reads as `default`).
    static func set(_ o: inout JSONObject, _ field: String, _ value: Int64, default def: Int64) {
        let current: Int64? = switch o[field] {
        case nil, .null?: def
        case .int(let i)?: i
        case .double(let d)? where d == d.rounded() && abs(d) < 9.2e18: Int64(d)
        default: nil
        }
        if current != value { o[field] = .int(value) }
    }

    /// The receiver's notification `notifications/gift-{id}` and its push (when `notify`: the
    /// type is allowed and no document is at that id already), then the `gift.completed` event.
    func announce(notify: Bool, context: JobContext) {
        if notify, let path = try? DocumentPath("notifications", "gift-\(transactionID)"), !context.isInvalid(path) {
            let title = "Points received!"
            let message = "\(sender.name) sent you \(amount) points"
            let actionURL = "/transactions/\(transactionID)"
            context.create(path, JSONObject([
                ("userId", .string(receiver.id)), ("type", .string(Self.notificationType)), ("title", .string(title)),
                ("message", .string(message)), ("relatedUserId", .string(sender.id)), ("relatedTransactionId", .string(transactionID)),
                ("read", false), ("createdAt", now), ("actionUrl", .string(actionURL)),
            ]))
            PushMessages.queue(
                notificationID: path.id, userID: receiver.id, tokens: receiver.tokens, title: title, body: message,
                type: Self.notificationType, actionURL: actionURL, createdAt: startTime, context: context)
        }
        context.queue(.event("gift.completed", id: "gift.completed-\(transactionID)", data: JSONObject([
            ("transactionId", .string(transactionID)), ("fromUserId", .string(sender.id)), ("toUserId", .string(receiver.id)),
            ("amount", .int(amount)), ("completedAt", now),
        ])))
    }
}
