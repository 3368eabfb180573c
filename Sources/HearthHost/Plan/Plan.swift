package import HearthKit
/// What a run would write (dry run) or wrote (real run), in a form to report.
package struct Plan: Sendable {
    package typealias FieldChange = Changeset.FieldChange

    package struct Change: Sendable {
        package var path: DocumentPath
        package var action: Changeset.Action
        /// Field-level diff (updates).
        package var fields: [FieldChange]
        /// The new document's bytes (creates); the plan parses it again when it shows it.
        package var content: [UInt8]?

        /// The new document (creates).
        package var document: JSONObject? {
            guard let content, case .object(let o)? = try? JSONParser.parse(content) else { return nil }
            return o
        }
    }

    package var job: String
    package var logicalTime: String
    package var timeZone: String
    package var dryRun: Bool
    package var changes: [Change]
    package var messages: [OutboxMessage]
    package var warnings: [String]

    package init(job: String, logicalTime: String, timeZone: String, dryRun: Bool, changeset: Changeset, warnings: [String]) {
        self.job = job
        self.logicalTime = logicalTime
        self.timeZone = timeZone
        self.dryRun = dryRun
        self.messages = changeset.messages
        self.warnings = warnings
        // Ordered by collection, then id. Each key is made once (a path's `collection` joins
        // its components: made in the comparison, it cost ~3% of a 163,000-entry run) and the
        // indices are sorted, not the entries.
        let entries = changeset.entries
        let keys = entries.map { ($0.path.collection, $0.path.id) }
        self.changes = entries.indices.sorted { keys[$0] < keys[$1] }.map { i in
            let e = entries[i]
            return Change(path: e.path, action: e.action, fields: e.fields, content: e.action == .create ? e.content : nil)
        }
    }

    package var counts: (create: Int, update: Int, delete: Int) {
        let c = Changeset.Action.tally(changes.map(\.action))
        return (c.created, c.updated, c.deleted)
    }

    package var pushCount: Int { messages.count { $0.kind == .push } }
    package var webhookCount: Int { messages.count { $0.kind == .event } }
    package var isEmpty: Bool { changes.isEmpty && messages.isEmpty }

    /// `Plan: 3 to create, 120 to update, 0 to delete; 45 pushes, 2 webhooks.` (or `Applied:`),
    /// or `No changes.`
    package var summaryLine: String {
        let c = counts
        return Changeset.summaryLine(dryRun: dryRun, created: c.create, updated: c.update, deleted: c.delete, messages: messages)
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
    package static func redact(_ secret: String) -> String { Redaction.redact(secret) }

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
