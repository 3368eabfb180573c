import Foundation
import HearthKit
import HearthStore
import HearthHost

/// `GET /runs/{id}`: one run's record and, when this daemon made the run, its plan report
/// (docs/operations/monitoring.md#the-status-page).
struct RunPage {
    var record: RunRecord
    var plan: Plan?

    func render() -> String {
        let r = record
        var body = "<p><a href=\"/\">← status</a> · <a href=\"/jobs/\(HTML.escape(r.job))\">\(HTML.escape(r.job))</a></p><h1>\(HTML.escape(r.job)) · \(HTML.status(r.status.rawValue))</h1>"
        let duration = DurationFormat.format(.milliseconds(Int64(max(0, r.end.timeIntervalSince(r.start)) * 1000)))
        var rows: [[String]] = [
            ["Run", "<code>\(HTML.escape(r.runID))</code>"], ["Job", HTML.escape(r.job)], ["Status", HTML.status(r.status.rawValue)],
            ["Trigger", HTML.escape(r.trigger.rawValue)], ["Attempt", String(r.attempt)], ["Logical time", HTML.time(r.logicalTime)],
            ["Start", HTML.time(r.start)], ["End", HTML.time(r.end)], ["Duration", HTML.escape(duration)],
            ["Changes", "\(r.created) created, \(r.updated) updated, \(r.deleted) deleted; \(r.messagesQueued) messages queued"],
            ["Documents read", String(r.documentsRead)], ["Dry run", r.dryRun ? "yes" : "no"],
        ]
        if r.trigger == .write {
            // The writes that started it (docs/triggers.md#what-the-daemon-does-with-writes).
            let shown = r.triggerPaths.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: ", ")
            let more = r.triggerPathCount > r.triggerPaths.count ? " and \(r.triggerPathCount - r.triggerPaths.count) more" : ""
            rows.insert(["Triggered by", r.triggerPathCount == 0 ? "writes not listed: the run read everything" : "writes to \(shown)\(more)"], at: 4)
        }
        if r.trigger == .call {
            // The caller and the answer (docs/callables.md#run-records); never the token.
            rows.insert(["Call", "from \(r.callerUID.map { "<code>\(HTML.escape($0))</code>" } ?? "a caller with no token"), answered <code>\(HTML.escape(r.answer ?? "—"))</code>"], at: 4)
        }
        body += HTML.table(["Field", "Value"], rows, wrapping: [1], empty: "")
        if let error = r.error {
            // A command job's failure ends with the last lines of its stderr (docs/functions.md).
            if let range = error.range(of: Self.stderrMarker) {
                body += "<h2>Error</h2><pre>\(HTML.escape(String(error[..<range.lowerBound])))</pre>"
                body += "<h2>stderr (last lines)</h2><pre class=\"stderr\">\(HTML.escape(String(error[range.upperBound...])))</pre>"
            } else {
                body += "<h2>Error</h2><pre>\(HTML.escape(error))</pre>"
            }
        }
        if !r.warnings.isEmpty {
            body += "<h2>Warnings</h2><ul>" + r.warnings.map { "<li>\(HTML.escape($0))</li>" }.joined() + "</ul>"
        }
        body += "<h2>Plan report</h2>"
        if let plan {
            body += "<pre>\(HTML.escape(plan.text(limit: 50, color: false)))</pre>"
        } else {
            body += "<p class=\"muted\">Not kept: the daemon keeps the plan reports of its last \(RunPage.kept) runs in memory; this run was made by the CLI, before the daemon started, or was a skipped slot. <code>hearth plan \(HTML.escape(r.job)) --now \(HTML.escape(Timestamp.format(r.logicalTime)))</code> shows what it would do now.</p>"
        }
        body += "<h2>Record</h2><pre>\(HTML.escape(JSONWriter.pretty(.object(r.json))))</pre>"
        return HTML.page(title: "\(r.job) \(r.runID)", refresh: nil, body: body)
    }

    static let kept = 100
    static let stderrMarker = "; its last stderr lines:\n"

    /// A run asked for over HTTP that has not ended yet: refreshed every 2 s until it has.
    static func pending(id: String, job: String, running: Bool) -> String {
        let body = "<p><a href=\"/jobs/\(HTML.escape(job))\">← \(HTML.escape(job))</a></p><h1>\(HTML.escape(job)) · <span class=\"warn\">\(running ? "running" : "queued")</span></h1><p>Run <code>\(HTML.escape(id))</code> \(running ? "is running" : "waits in the daemon's queue"); this page refreshes until it ends.</p>"
        return HTML.page(title: "\(job) \(id)", refresh: 2, body: body)
    }
}
