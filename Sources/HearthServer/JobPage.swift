import Foundation
import HearthKit
import HearthStore
import HearthHost

/// `GET /jobs/{name}` (docs/operations/monitoring.md#the-job-page): the job's schedule and
/// state, its failure streak, run now / pause / resume, a chart of its run durations and its
/// last runs, and its latest audit entries.
struct JobPage {
    var job: DaemonStatus.Job
    var runs: [RunRecord]
    var audit: [AuditEntry]
    var viewer: Viewer

    static let runLimit = 100

    func render() -> String {
        let j = job
        var body = "<p><a href=\"/\">← status</a></p><h1>\(HTML.escape(j.name))</h1>"
        let state = HTML.jobState(j) { pause in
            var paused = "<span class=\"tag\">paused</span> since \(HTML.time(pause.pausedAt)) by \(HTML.escape(pause.pausedBy))"
            if let note = pause.note, !note.isEmpty { paused += " — <span class=\"note\">\(HTML.escape(note))</span>" }
            return paused
        }
        let fires = j.nextFires.map { HTML.escape(LocalTime.format($0, in: j.timeZone)) }.joined(separator: "<br>")
        let streak = j.consecutiveFailures == 0 ? "none" : "<span class=\"bad\">\(j.consecutiveFailures) failed run\(j.consecutiveFailures == 1 ? "" : "s") in a row</span>"
        let rows: [[String]] = [
            ["State", "<span id=\"state\">\(state)</span>"],
            ["Schedule", "<code>\(HTML.escape(j.schedule))</code> (\(HTML.escape(j.timeZone.ianaName)))"],
            ["Triggers", triggers()],
            ["Calls", job.callAuth.map { "apps call it: <code>POST /call/\(HTML.escape(j.name))</code>, ID token \($0.rawValue)" } ?? "<span class=\"muted\">not callable</span>"],
            ["Next", fires.isEmpty ? "<span class=\"muted\">—</span>" : fires],
            ["Last result", j.lastRecord.map { "<a href=\"/runs/\(HTML.escape($0.runID))\">\(HTML.status($0.status.rawValue))</a> \(HTML.time($0.end))" } ?? "<span class=\"muted\">never run</span>"],
            ["Last success", HTML.time(j.lastSuccess)],
            ["Failure streak", streak],
        ]
        body += HTML.table(["", ""], rows, wrapping: [1], empty: "")
        body += "<h2>Actions</h2>" + actions()
        body += "<h2>Durations</h2>" + DurationChart(runs: runs).render()
        body += "<h2>Last runs</h2>" + runTable()
        body += "<h2>Audit</h2>" + AuditTable(entries: audit).render(showJob: false)
        return HTML.page(title: "\(j.name) · Hearth", refresh: nil, body: body)
    }

    /// The schedule, then the collections whose writes start a run (docs/triggers.md).
    func triggers() -> String {
        let schedule = job.schedule.isEmpty ? "no schedule" : "its schedule"
        guard !job.triggers.isEmpty else { return schedule }
        return "\(schedule); writes to " + job.triggers.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: ", ")
    }

    func actions() -> String {
        guard viewer.canAct else { return viewer.hint }
        guard job.enabled else {
            return "<p class=\"muted\">Disabled (<code>enabled = false</code>): the daemon neither schedules nor runs it; <code>hearth run \(HTML.escape(job.name))</code> runs it by hand.</p>"
        }
        let name = HTML.escape(job.name)
        var s = viewer.form(
            "/jobs/\(job.name)/run",
            fields: "<label><input type=\"checkbox\" name=\"dryRun\" value=\"true\"> dry run</label> "
                + (job.pause != nil ? "<input type=\"hidden\" name=\"force\" value=\"true\">" : ""),
            button: job.pause != nil ? "Run now (although paused)" : "Run now")
        if job.pause != nil {
            s += viewer.form("/jobs/\(job.name)/resume", button: "Resume")
        } else {
            s += viewer.form("/jobs/\(job.name)/pause", fields: "<label>Note <input type=\"text\" name=\"note\" maxlength=\"1000\" placeholder=\"why\"></label> ", button: "Pause")
        }
        return s + "<p class=\"muted\">Runs go through the daemon's queue: a run now waits for a run of \(name) in progress.</p>"
    }

    func runTable() -> String {
        let rows = runs.prefix(Self.runLimit).map { r -> [String] in
            [
                "<a href=\"/runs/\(HTML.escape(r.runID))\">\(HTML.status(r.status.rawValue))</a>" + (r.dryRun ? " <span class=\"tag\">dry run</span>" : ""),
                HTML.escape(r.trigger.rawValue), String(r.attempt), HTML.time(r.logicalTime), HTML.time(r.end),
                HTML.escape(DurationFormat.format(.milliseconds(Int64(DurationChart.seconds(r) * 1000))))
                    + (r.error.map { "<br><span class=\"bad\">\(HTML.escape(StatusPage.firstLine($0)))</span>" } ?? ""),
            ]
        }
        return HTML.table(["Outcome", "Trigger", "Attempt", "Logical time", "Ended", "Duration"], Array(rows), wrapping: [5], empty: "No runs yet.")
    }
}
