import HearthStore

/// The audit log's latest entries as a table (status page, job page).
struct AuditTable {
    var entries: [AuditEntry]

    func render(showJob: Bool) -> String {
        let rows = entries.map { e -> [String] in
            var row = [HTML.time(e.time), HTML.escape(e.action.rawValue)]
            if showJob { row.append(e.job.map { "<a href=\"/jobs/\(HTML.escape($0))\">\(HTML.escape($0))</a>" } ?? "") }
            row += [
                HTML.escape(e.actor), HTML.escape([e.target, e.note].compactMap { $0 }.joined(separator: " · ")),
                e.outcome == "ok" ? "<span class=\"ok\">ok</span>" : "<span class=\"bad\">\(HTML.escape(e.outcome))</span>",
            ]
            return row
        }
        let header = showJob ? ["Time", "Action", "Job", "Who", "Details", "Outcome"] : ["Time", "Action", "Who", "Details", "Outcome"]
        return HTML.table(header, rows, wrapping: [header.count - 2, header.count - 1], empty: "No actions recorded.")
    }
}
