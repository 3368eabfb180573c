/// A message a job queues in its changeset: written to `.hearth/outbox/` in the same atomic
/// commit as its documents, delivered after it.
public struct OutboxMessage: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// A push notification to one user's devices.
        case push
        /// An event (`bonus.paid`, `job.failed`…) for the configured webhooks.
        case event
    }

    /// Stable id: the same logical message always gets the same id, so delivery is
    /// at-least-once without duplicates from re-runs.
    public var id: String
    public var kind: Kind
    /// User id for pushes; the event type for events.
    public var recipient: String
    /// Push title, or the event type.
    public var title: String
    /// Push: `{userId, title, body, data, badge}`; event: the event's `data`.
    public var payload: JSONObject

    public init(id: String, kind: Kind, recipient: String, title: String, payload: JSONObject) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.title = title
        self.payload = payload
    }

    /// An event for the webhooks (`type`, data).
    public static func event(_ type: String, id: String, data: JSONObject) -> OutboxMessage {
        OutboxMessage(id: id, kind: .event, recipient: type, title: type, payload: data)
    }
}

extension OutboxMessage {
    /// A push to one user's devices with the documented payload (docs/push.md):
    /// `{"userId", "tokens", "title", "body", "data", "badge"?}`, recipient the user id.
    public static func push(id: String, userID: String, tokens: [String], title: String, body: String, data: JSONObject, badge: Int?) -> OutboxMessage {
        var payload: [(String, JSONValue)] = [
            ("userId", .string(userID)), ("tokens", .array(tokens.map { .string($0) })), ("title", .string(title)), ("body", .string(body)),
            ("data", .object(data)),
        ]
        if let badge { payload.append(("badge", .int(Int64(badge)))) }
        return OutboxMessage(id: id, kind: .push, recipient: userID, title: title, payload: JSONObject(payload))
    }
}
