import Foundation
import HearthKit

extension Plan {
    /// For pasting into a pull request or a chat: a heading, a table per collection, the summary.
    package func markdown(limit: Int) -> String {
        var out = "### \(dryRun ? "Plan" : "Applied"): `\(job)` at \(logicalTime) (\(timeZone))\n\n"
        if isEmpty { return out + "No changes.\n" }
        for (collection, changes) in byCollection {
            out += "#### `\(collection)`\n\n| action | document | changes |\n|---|---|---|\n"
            for ch in changes.prefix(limit) {
                let detail: String
                switch ch.action {
                case .create: detail = ch.document.map { Plan.render(.object($0)) } ?? ""
                case .update:
                    detail = ch.fields.map { f in
                        "\(f.field): \(f.before.map(Plan.render) ?? "(absent)") → \(f.after.map(Plan.render) ?? "(removed)")"
                    }.joined(separator: "<br>")
                case .delete: detail = ""
                }
                out += "| \(ch.action.rawValue) | `\(ch.path)` | \(Plan.escapeCell(detail)) |\n"
            }
            if changes.count > limit { out += "\n… and \(changes.count - limit) more in `\(collection)`.\n" }
            out += "\n"
        }
        if !messages.isEmpty {
            out += "#### Outbox\n\n"
            for m in messages.prefix(limit) { out += "- \(Plan.escapeCell(Plan.describe(m)))\n" }
            if messages.count > limit { out += "- … and \(messages.count - limit) more\n" }
            out += "\n"
        }
        return out + "**\(summaryLine)**\n"
    }

    static func escapeCell(_ s: String) -> String {
        s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
