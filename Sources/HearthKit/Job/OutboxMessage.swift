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
    /// Push: `{userId, title, body, data, badge}`; event: the event's `data`. Kept as its
    /// compact JSON (``compactPayload``) and parsed again when read: a run that queues 100,000
    /// pushes holds ~400 bytes of text each instead of a tree of ~1 KiB
    /// (docs/performance.md#peak-memory).
    public var payload: JSONObject {
        get {
            switch stored {
            case .object(let o): return o
            case .compact(let bytes):
                guard case .object(let o)? = try? JSONParser.parse(bytes) else {
                    preconditionFailure("JSONWriter.compact output of an object does not parse back")
                }
                return o
            }
        }
        set { stored = Payload(newValue) }
    }

    /// ``payload`` as `JSONWriter.compact` writes it (what the outbox stores).
    public var compactPayload: [UInt8] {
        switch stored {
        case .compact(let bytes): return bytes
        case .object(let o): return JSONWriter.compactBytes(.object(o))
        }
    }

    private var stored: Payload

    private enum Payload: Sendable {
        case compact([UInt8])
        /// A payload whose text would not parse back (a non-finite `Double` has no JSON form).
        case object(JSONObject)

        init(_ object: JSONObject) {
            if object.containsNonFiniteNumber {
                self = .object(object)
                return
            }
            var out: [UInt8] = []
            out.reserveCapacity(512)
            JSONWriter.writeCompact(.object(object), into: &out)
            self = .compact(Array(fitting: out))
        }
    }

    public init(id: String, kind: Kind, recipient: String, title: String, payload: JSONObject) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.title = title
        self.stored = Payload(payload)
    }

    public static func == (a: OutboxMessage, b: OutboxMessage) -> Bool {
        a.id == b.id && a.kind == b.kind && a.recipient == b.recipient && a.title == b.title && a.payload == b.payload
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

extension JSONObject {
    /// Whether a `Double` in it (at any depth) is infinite or NaN: JSON has no text for those.
    fileprivate var containsNonFiniteNumber: Bool {
        values.contains { $0.containsNonFiniteNumber }
    }
}

extension JSONValue {
    fileprivate var containsNonFiniteNumber: Bool {
        switch self {
        case .double(let d): !d.isFinite
        case .array(let items): items.contains { $0.containsNonFiniteNumber }
        case .object(let o): o.containsNonFiniteNumber
        default: false
        }
    }
}
