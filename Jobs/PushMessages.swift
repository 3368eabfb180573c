public import Foundation
public import HearthKit

/// The one way jobs queue the push for a notification they create (docs/push.md, docs/jobs/achievement-unlock.md#when-an-achievement-unlocks, docs/jobs/notification-fanout.md#pushes), so
/// that every job builds the same message and `notification-fanout` knows which notifications
/// already had their push.
///
/// - **Tokens** are read from the user document when the job runs and travel in the message
///   (`payload.tokens`, shown redacted in plans): for `provider = "apns"` the `apnsTokens`
///   array; for `"fcm"` (and `"none"`, whose plans show what FCM would get) `fcmTokens` then the
///   legacy single `fcmToken`; for `"webhook"` all of them. Empty strings and repeats are
///   dropped; wrong-typed token fields are left out (see ``deviceTokens(of:provider:)``).
/// - **Message**: id `push-{notificationId}`, kind `.push`, recipient the user id, payload
///   `{"userId", "tokens", "title", "body", "data": {"notificationId", "type", "actionUrl"},
///   "badge"?}`.
/// - **Ledger**: every notification handled is recorded in Hearth's ledger (namespace
///   ``ledgerNamespace``, dated by the notification's `createdAt`) as ``queued`` — or, for a
///   user without device tokens, ``noTokens``, and then no message is queued at all.
public enum PushMessages {
    /// The ledger namespace: notification id → ``queued`` | ``collapsed`` | ``noTokens``.
    public static let ledgerNamespace = "notification-push"
    public static let queued = "queued"
    public static let collapsed = "collapsed"
    public static let noTokens = "no-tokens"

    /// A user's device tokens for one provider, and what was wrong with the token fields.
    public struct DeviceTokens: Sendable, Equatable {
        public var tokens: [String]
        /// Wrong-typed token fields, e.g. `field "fcmTokens": expected an array of strings,
        /// found string`. Values are never shown: tokens are credentials.
        public var problems: [String]

        public init(tokens: [String] = [], problems: [String] = []) {
            self.tokens = tokens
            self.problems = problems
        }
    }

    /// The user's device tokens for `provider`. Token fields are read leniently, as the outbox
    /// deliverer reads them: a field of the wrong type, or a non-string entry, is left out and
    /// named in `problems` — it never makes the user document invalid input (other jobs rewrite
    /// users; a push concern must not stop them).
    public static func deviceTokens(of user: Document, provider: PushProviderKind) -> DeviceTokens {
        var out = DeviceTokens()
        var seen = Set<String>()
        func add(_ t: String) {
            if !t.isEmpty, seen.insert(t).inserted { out.tokens.append(t) }
        }
        func array(_ field: String) {
            switch user[field] {
            case nil, .null?: return
            case .array(let items)?:
                for (i, item) in items.enumerated() {
                    if case .string(let t) = item { add(t) } else { out.problems.append("field \"\(field)[\(i)]\": expected string, found \(item.typeName)") }
                }
            case let other?: out.problems.append("field \"\(field)\": expected an array of strings, found \(other.typeName)")
            }
        }
        if provider != .apns {
            array("fcmTokens")
            switch user["fcmToken"] {
            case nil, .null?: break
            case .string(let t)?: add(t)
            case let other?: out.problems.append("field \"fcmToken\": expected string, found \(other.typeName)")
            }
        }
        if provider == .apns || provider == .webhook { array("apnsTokens") }
        return out
    }

    /// The `.push` message for one notification (nil without tokens).
    public static func message(
        notificationID: String, userID: String, tokens: [String], title: String, body: String, type: String, actionURL: String, badge: Int?
    ) -> OutboxMessage? {
        guard !tokens.isEmpty else { return nil }
        return push(
            id: "push-\(notificationID)", userID: userID, tokens: tokens, title: title, body: body,
            data: [("notificationId", notificationID), ("type", type), ("actionUrl", actionURL)], badge: badge)
    }

    /// A `.push` message with the documented payload.
    public static func push(id: String, userID: String, tokens: [String], title: String, body: String, data: [(String, String)], badge: Int?) -> OutboxMessage {
        var payload: [(String, JSONValue)] = [
            ("userId", .string(userID)), ("tokens", .array(tokens.map { .string($0) })), ("title", .string(title)), ("body", .string(body)),
            ("data", .object(JSONObject(data.map { ($0.0, .string($0.1)) }))),
        ]
        if let badge { payload.append(("badge", .int(Int64(badge)))) }
        return OutboxMessage(id: id, kind: .push, recipient: userID, title: title, payload: JSONObject(payload))
    }

    /// Queues the push for a notification the job creates in this run (when the user has
    /// tokens) and records it in the ledger. Returns whether a message was queued.
    @discardableResult
    public static func queue(
        notificationID: String, userID: String, tokens: [String], title: String, body: String, type: String, actionURL: String,
        badge: Int? = nil, createdAt: Date, context: JobContext
    ) -> Bool {
        let m = message(notificationID: notificationID, userID: userID, tokens: tokens, title: title, body: body, type: type, actionURL: actionURL, badge: badge)
        if let m { context.queue(m) }
        context.record(ledgerNamespace, key: notificationID, value: m == nil ? noTokens : queued, date: createdAt)
        return m != nil
    }
}
