import HearthKit
extension Plan {
    /// The human report: per collection creates / updates / deletes with field diffs (at most
    /// `limit` documents per collection), queued messages, then the summary line.
    package func text(limit: Int, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        if isEmpty {
            return summaryLine + "\n"
        }
        for (collection, changes) in byCollection {
            let c = changes.count { $0.action == .create }
            let u = changes.count { $0.action == .update }
            let d = changes.count { $0.action == .delete }
            var parts: [String] = []
            if c > 0 { parts.append("\(c) to create") }
            if u > 0 { parts.append("\(u) to update") }
            if d > 0 { parts.append("\(d) to delete") }
            out += "\(collection): \(parts.joined(separator: ", "))\n"
            for ch in changes.prefix(limit) {
                switch ch.action {
                case .create:
                    out += "  " + paint("+ \(ch.path)", "32") + "\n"
                    if let doc = ch.document {
                        for (k, v) in doc { out += "      \(k): \(Plan.render(v))\n" }
                    }
                case .update:
                    out += "  " + paint("~ \(ch.path)", "33") + "\n"
                    for f in ch.fields {
                        let b = f.before.map(Plan.render) ?? "(absent)"
                        let a = f.after.map(Plan.render) ?? "(removed)"
                        out += "      \(f.field): \(b) → \(a)\n"
                    }
                case .delete:
                    out += "  " + paint("- \(ch.path)", "31") + "\n"
                }
            }
            if changes.count > limit {
                out += "  … and \(changes.count - limit) more in \(collection) (use --limit to show more)\n"
            }
            out += "\n"
        }
        if !messages.isEmpty {
            out += "outbox: \(messages.count) to queue\n"
            for m in messages.prefix(limit) { out += "  " + Plan.describe(m) + "\n" }
            if messages.count > limit { out += "  … and \(messages.count - limit) more (use --limit to show more)\n" }
            out += "\n"
        }
        out += summaryLine + "\n"
        return out
    }

    /// A value in one line, long values shortened.
    static func render(_ v: JSONValue) -> String {
        let s = JSONWriter.compact(v)
        return s.count > 120 ? String(s.prefix(117)) + "…" : s
    }
}
