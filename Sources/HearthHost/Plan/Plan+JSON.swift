package import HearthKit
extension Plan {
    /// The stable JSON shape documented in the README. Always complete (no `--limit`).
    package var json: JSONValue {
        .object(JSONObject(header + [
            ("changes", .array(changes.map(Plan.json))),
            ("messages", .array(messages.map(Plan.json))),
        ] + trailer))
    }

    /// ``json`` written pretty, with a final newline, handed to `emit` in pieces of about
    /// `chunk` bytes: the same bytes as `JSONWriter.pretty(json) + "\n"`, without the whole
    /// plan in memory as one tree and one string (a plan of 100,000 changes is ~100 MB of text).
    package func writeJSON(chunk: Int = 1 << 20, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out: [UInt8] = []
        out.reserveCapacity(chunk + 4096)
        func flush(_ force: Bool) throws {
            if force || out.count >= chunk {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        func indent(_ n: Int) {
            out.append(0x0A)
            for _ in 0..<n { out.append(0x20); out.append(0x20) }
        }
        func member(_ first: Bool, _ key: String) {
            if !first { out.append(0x2C) }
            indent(1)
            JSONWriter.write(.string(key), indent: 1, pretty: true, into: &out)
            out.append(contentsOf: [0x3A, 0x20])
        }
        // Items of an array at depth 1, each one built and written alone.
        func array(_ count: Int, _ item: (Int) -> JSONValue) throws {
            if count == 0 { out.append(contentsOf: [0x5B, 0x5D]); return }
            out.append(0x5B)
            for i in 0..<count {
                if i > 0 { out.append(0x2C) }
                indent(2)
                JSONWriter.write(item(i), indent: 2, pretty: true, into: &out)
                try flush(false)
            }
            indent(1)
            out.append(0x5D)
        }
        out.append(0x7B)
        var first = true
        for (k, v) in header {
            member(first, k)
            first = false
            JSONWriter.write(v, indent: 1, pretty: true, into: &out)
        }
        member(false, "changes")
        try array(changes.count) { Plan.json(changes[$0]) }
        member(false, "messages")
        try array(messages.count) { Plan.json(messages[$0]) }
        for (k, v) in trailer {
            member(false, k)
            JSONWriter.write(v, indent: 1, pretty: true, into: &out)
        }
        indent(0)
        out.append(contentsOf: [0x7D, 0x0A])
        try flush(true)
    }

    private var header: [(String, JSONValue)] {
        [("job", .string(job)), ("logicalTime", .string(logicalTime)), ("timeZone", .string(timeZone)), ("dryRun", .bool(dryRun))]
    }

    private var trailer: [(String, JSONValue)] {
        let c = counts
        return [
            ("warnings", .array(warnings.map { .string($0) })),
            ("summary", .object(JSONObject([
                ("create", .int(Int64(c.create))), ("update", .int(Int64(c.update))), ("delete", .int(Int64(c.delete))),
                ("pushes", .int(Int64(pushCount))), ("webhooks", .int(Int64(webhookCount))),
                ("line", .string(summaryLine)),
            ]))),
        ]
    }

    private static func json(_ ch: Change) -> JSONValue {
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
        return .object(o)
    }

    private static func json(_ m: OutboxMessage) -> JSONValue {
        var o = JSONObject([("id", .string(m.id)), ("kind", .string(m.kind == .push ? "push" : "webhook")), ("recipient", .string(m.recipient)), ("title", .string(m.title))])
        if case .array(let tokens)? = m.payload["tokens"] {
            o["tokens"] = .array(tokens.compactMap(\.stringValue).map { .string(Plan.redact($0)) })
        }
        return .object(o)
    }
}
