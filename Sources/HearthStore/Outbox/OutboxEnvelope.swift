package import Foundation
package import HearthKit

/// One outbox message file as stored under `.hearth/outbox/<folder>/`: the envelope written by
/// the job's commit (``queued(_:job:runID:createdAt:)``) plus delivery state.
///
/// Delivery state, added by ``OutboxDeliverer``:
/// - `targets`: per endpoint name (events) or device token (pushes), `{"state", "at", "error"}`,
///   so that a retry only re-sends to the targets not done yet;
/// - `attempts`, `nextAttemptAt`, `lastError`;
/// - `firstAttemptAt`, and `retriedAt` (set by `hearth outbox retry`): `maxAge` counts from them;
/// - `finishedAt`, `reason` for dead and dropped messages.
///
/// Unknown keys are kept as they are.
package struct OutboxEnvelope: Sendable {
    /// Where one target stands.
    package enum TargetState: String, Sendable, CaseIterable {
        /// Not sent successfully yet; the next attempt sends it.
        case pending
        /// The endpoint or push service accepted it.
        case delivered
        /// The push service said the token is dead; it was removed from the user's document.
        case removed
        /// The endpoint answered 410 and is disabled until its configuration changes.
        case disabled
        /// Not sent: the endpoint is no longer configured, or is disabled.
        case skipped
        /// A permanent failure (never retried unchanged): the message becomes a dead letter.
        case failed

        /// Whether nothing more will be done for this target automatically.
        package var isFinal: Bool { self != .pending }
    }

    /// One endpoint (events) or device token (pushes) of a message.
    package struct Target: Sendable, Equatable {
        package var name: String
        package var state: TargetState
        package var at: Date?
        package var error: String?

        package init(name: String, state: TargetState = .pending, at: Date? = nil, error: String? = nil) {
            self.name = name
            self.state = state
            self.at = at
            self.error = error
        }
    }

    package var object: JSONObject

    package init(object: JSONObject) {
        self.object = object
    }

    /// Parses a message file; nil when it is not a JSON object with a string `id`.
    package init?(bytes: [UInt8]) {
        guard case .object(let o)? = try? JSONParser.parse(bytes), o["id"]?.stringValue != nil else { return nil }
        object = o
    }

    /// Parses one line of a batch file in place (no copy).
    package init?(bytes: ArraySlice<UInt8>) {
        guard case .object(let o)? = try? JSONParser.parse(bytes), o["id"]?.stringValue != nil else { return nil }
        object = o
    }

    /// The stored form of a queued message, before any delivery attempt.
    package static func queued(_ m: OutboxMessage, job: String, runID: String, createdAt: Date) -> JSONObject {
        JSONObject([
            ("id", .string(m.id)), ("kind", .string(m.kind.rawValue)), ("recipient", .string(m.recipient)),
            ("title", .string(m.title)), ("payload", .object(m.payload)), ("job", .string(job)), ("runId", .string(runID)),
            ("createdAt", Timestamp.json(createdAt)), ("attempts", .int(0)), ("nextAttemptAt", Timestamp.json(createdAt)),
            ("lastError", .null),
        ])
    }

    /// The file's bytes (the document layout).
    package var bytes: [UInt8] { JSONWriter.document(object) }

    package var id: String { object["id"]?.stringValue ?? "" }
    package var kind: OutboxMessage.Kind? { object["kind"]?.stringValue.flatMap(OutboxMessage.Kind.init(rawValue:)) }
    package var recipient: String { object["recipient"]?.stringValue ?? "" }
    package var title: String { object["title"]?.stringValue ?? "" }
    package var payload: JSONObject { object["payload"]?.objectValue ?? JSONObject() }
    package var job: String? { object["job"]?.stringValue }
    package var runID: String? { object["runId"]?.stringValue }
    package var createdAt: Date? { object["createdAt"].flatMap(Timestamp.date(from:)) }

    package var attempts: Int {
        get { Int(object["attempts"]?.intValue ?? 0) }
        set { object["attempts"] = .int(Int64(newValue)) }
    }

    /// When the message is next due; nil (absent) means now.
    package var nextAttemptAt: Date? {
        get { object["nextAttemptAt"].flatMap(Timestamp.date(from:)) }
        set { object["nextAttemptAt"] = newValue.map(Timestamp.json) ?? .null }
    }

    package var lastError: String? {
        get { object["lastError"]?.stringValue }
        set { object["lastError"] = newValue.map(JSONValue.string) ?? .null }
    }

    package var retriedAt: Date? {
        get { object["retriedAt"].flatMap(Timestamp.date(from:)) }
        set { object["retriedAt"] = newValue.map(Timestamp.json) }
    }

    /// Why the message is dead or dropped.
    package var reason: String? {
        get { object["reason"]?.stringValue }
        set { object["reason"] = newValue.map(JSONValue.string) }
    }

    package var finishedAt: Date? {
        get { object["finishedAt"].flatMap(Timestamp.date(from:)) }
        set { object["finishedAt"] = newValue.map(Timestamp.json) }
    }

    /// When delivery was first attempted (set by the deliverer).
    package var firstAttemptAt: Date? {
        get { object["firstAttemptAt"].flatMap(Timestamp.date(from:)) }
        set { object["firstAttemptAt"] = newValue.map(Timestamp.json) }
    }

    /// `maxAge` counts from here: the last `hearth outbox retry`, else the first attempt (right
    /// after the commit, normally), else the creation. Not the creation first: `createdAt` is
    /// the run's start time, which `--now` may set anywhere in the past.
    package var ageBase: Date? { retriedAt ?? firstAttemptAt ?? createdAt }

    /// When the message is due: a message never attempted is due at once (its `nextAttemptAt`
    /// is the run's start time, which `--now` may set in the future).
    package var dueAt: Date { attempts == 0 ? .distantPast : (nextAttemptAt ?? .distantPast) }

    /// The targets, in the order they were first resolved. Empty before the first attempt.
    package var targets: [Target] {
        get {
            guard let o = object["targets"]?.objectValue else { return [] }
            return o.map { name, value in
                let t = value.objectValue ?? JSONObject()
                return Target(
                    name: name, state: t["state"]?.stringValue.flatMap(TargetState.init(rawValue:)) ?? .pending,
                    at: t["at"].flatMap(Timestamp.date(from:)), error: t["error"]?.stringValue)
            }
        }
        set {
            var o = JSONObject()
            for t in newValue {
                var e = JSONObject([("state", .string(t.state.rawValue))])
                if let at = t.at { e["at"] = Timestamp.json(at) }
                if let error = t.error { e["error"] = .string(error) }
                o[t.name] = .object(e)
            }
            object["targets"] = .object(o)
        }
    }

    /// Whether the targets have been resolved (the first attempt happened).
    package var hasTargets: Bool { object["targets"]?.objectValue != nil }

    /// The device tokens the job queued (`payload.tokens`), or nil when it queued none.
    package var queuedTokens: [String]? {
        guard case .array(let list)? = payload["tokens"] else { return nil }
        return list.compactMap(\.stringValue)
    }
}
