package import HearthKit
extension Plan {
    /// The stable JSON shape documented in the README. Always complete (no `--limit`).
    package var json: JSONValue {
        let c = counts
        var changesJSON: [JSONValue] = []
        changesJSON.reserveCapacity(changes.count)
        for ch in changes {
            var o = JSONObject([
                ("path", .string(ch.path.description)),
                ("collection", .string(ch.path.collection)),
                ("id", .string(ch.path.id)),
                ("action", .string(ch.action.rawValue)),
            ])
            if ch.action == .update {
                o["fields"] = .array(ch.fields.map { f in
                    .object(JSONObject([("field", .string(f.field)), ("before", f.before ?? .null), ("after", f.after ?? .null)]))
                })
            }
            if let d = ch.document { o["document"] = .object(d) }
            changesJSON.append(.object(o))
        }
        let msgs: [JSONValue] = messages.map { m in
            var o = JSONObject([("id", .string(m.id)), ("kind", .string(m.kind == .push ? "push" : "webhook")), ("recipient", .string(m.recipient)), ("title", .string(m.title))])
            if case .array(let tokens)? = m.payload["tokens"] {
                o["tokens"] = .array(tokens.compactMap(\.stringValue).map { .string(Plan.redact($0)) })
            }
            return .object(o)
        }
        return .object(JSONObject([
            ("job", .string(job)),
            ("logicalTime", .string(logicalTime)),
            ("timeZone", .string(timeZone)),
            ("dryRun", .bool(dryRun)),
            ("changes", .array(changesJSON)),
            ("messages", .array(msgs)),
            ("warnings", .array(warnings.map { .string($0) })),
            ("summary", .object(JSONObject([
                ("create", .int(Int64(c.create))), ("update", .int(Int64(c.update))), ("delete", .int(Int64(c.delete))),
                ("pushes", .int(Int64(pushCount))), ("webhooks", .int(Int64(webhookCount))),
                ("line", .string(summaryLine)),
            ]))),
        ]))
    }
}
