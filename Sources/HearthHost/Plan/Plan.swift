public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound
/// What a run would write (dry run) or wrote (real run), in a form to report.
public struct Plan: Sendable {
    public struct FieldChange: Sendable, Equatable {
        public var field: String
        /// nil: the field is added.
        public var before: JSONValue?
        /// nil: the field is removed.
        public var after: JSONValue?
    }

    public struct Change: Sendable {
        public var path: DocumentPath
        public var action: Changeset.Action
        /// Field-level diff (updates).
        public var fields: [FieldChange]
        /// The new document (creates).
        public var document: JSONObject?
    }

    public var job: String
    public var logicalTime: String
    public var timeZone: String
    public var dryRun: Bool
    public var changes: [Change]
    public var messages: [OutboxMessage]
    public var warnings: [String]

    public init(job: String, logicalTime: String, timeZone: String, dryRun: Bool, changeset: Changeset, warnings: [String]) {
        self.job = job
        self.logicalTime = logicalTime
        self.timeZone = timeZone
        self.dryRun = dryRun
        self.messages = changeset.messages
        self.warnings = warnings
        self.changes = changeset.entries.sorted { a, b in
            a.path.collection != b.path.collection ? a.path.collection < b.path.collection : a.path.id < b.path.id
        }.map { e in
            Change(path: e.path, action: e.action, fields: Plan.diff(e.before, e.after), document: e.action == .create ? e.after : nil)
        }
    }

    /// Top-level field changes between two versions of a document, in the new key order,
    /// then removed fields.
    static func diff(_ before: JSONObject?, _ after: JSONObject?) -> [FieldChange] {
        guard let before, let after else { return [] }
        var out: [FieldChange] = []
        for (k, v) in after {
            if let old = before[k] {
                if !old.sameContent(as: v) { out.append(FieldChange(field: k, before: old, after: v)) }
            } else {
                out.append(FieldChange(field: k, before: nil, after: v))
            }
        }
        for (k, v) in before where after[k] == nil { out.append(FieldChange(field: k, before: v, after: nil)) }
        return out
    }

    public var counts: (create: Int, update: Int, delete: Int) {
        var c = (0, 0, 0)
        for ch in changes {
            switch ch.action {
            case .create: c.0 += 1
            case .update: c.1 += 1
            case .delete: c.2 += 1
            }
        }
        return c
    }

    public var pushCount: Int { messages.count { $0.kind == .push } }
    public var webhookCount: Int { messages.count { $0.kind == .event } }
    public var isEmpty: Bool { changes.isEmpty && messages.isEmpty }

    /// `Plan: 3 to create, 120 to update, 0 to delete; 45 pushes, 2 webhooks.` (or `Applied:`),
    /// or `No changes.`
    public var summaryLine: String {
        if isEmpty { return "No changes." }
        let c = counts
        let p = pushCount
        let w = webhookCount
        return "\(dryRun ? "Plan" : "Applied"): \(c.create) to create, \(c.update) to update, \(c.delete) to delete; "
            + "\(p) push\(p == 1 ? "" : "es"), \(w) webhook\(w == 1 ? "" : "s")."
    }

    /// Collections in the order they appear, with their changes.
    var byCollection: [(collection: String, changes: [Change])] {
        var order: [String] = []
        var groups: [String: [Change]] = [:]
        for ch in changes {
            let c = ch.path.collection
            if groups[c] == nil { order.append(c) }
            groups[c, default: []].append(ch)
        }
        return order.map { ($0, groups[$0]!) }
    }

    /// Tokens and secrets are shown by their last 6 characters only.
    public static func redact(_ secret: String) -> String { Redaction.redact(secret) }

    /// The line describing a queued message, secrets redacted.
    static func describe(_ m: OutboxMessage) -> String {
        switch m.kind {
        case .push:
            var s = "push → \(m.recipient): \(JSONWriter.quoted(m.title))"
            if case .array(let tokens)? = m.payload["tokens"] {
                let shown = tokens.compactMap(\.stringValue).map(redact)
                if !shown.isEmpty { s += " (" + shown.joined(separator: ", ") + ")" }
            }
            return s
        case .event:
            return "webhook \(m.recipient)"
        }
    }
}
