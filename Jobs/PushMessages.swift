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
///   dropped; wrong-typed token fields are left out (see ``HearthKit/DeviceTokens``).
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

    /// The `.push` message for one notification (nil without tokens).
    public static func message(
        notificationID: String, userID: String, tokens: [String], title: String, body: String, type: String, actionURL: String, badge: Int?
    ) -> OutboxMessage? {
        guard !tokens.isEmpty else { return nil }
        return push(
            id: "push-\(notificationID)", userID: userID, tokens: tokens, title: title, body: body,
            data: [("notificationId", notificationID), ("type", type), ("actionUrl", actionURL)], badge: badge)
    }

    /// A `.push` message with the documented payload (see ``HearthKit/OutboxMessage/push(id:userID:tokens:title:body:data:badge:)``).
    public static func push(id: String, userID: String, tokens: [String], title: String, body: String, data: [(String, String)], badge: Int?) -> OutboxMessage {
        OutboxMessage.push(id: id, userID: userID, tokens: tokens, title: title, body: body, data: JSONObject(data.map { ($0.0, .string($0.1)) }), badge: badge)
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
