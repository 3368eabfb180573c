import Foundation
import HearthKit
import HearthStore
import HearthHost

/// `GET /` (docs/operations/monitoring.md#the-status-page): the jobs, the latest runs and the
/// outbox, rendered on the server. Device tokens appear only redacted (``Plan/redact(_:)``),
/// in the targets and inside error texts.
struct StatusPage {
    var status: DaemonStatus
    var runs: [RunRecord]
    var pending: [OutboxEnvelope]
    var dead: [OutboxEnvelope]
    var now: Date
    /// The latest audit entries (docs/operations/monitoring.md#the-audit-log).
    var audit: [AuditEntry] = []
    var viewer = Viewer(csrf: nil, tokensConfigured: false)
    /// How many outbox messages of each folder are listed (the counts cover all).
    var listLimit = 50

    func render() -> String {
        var body = "<h1>Hearth</h1>"
        body += "<p class=\"muted\">\(HTML.escape(Timestamp.format(now)))"
        if let file = status.configFile { body += " · config <code>\(HTML.escape(file))</code>" }
        if status.stopping { body += " · <span class=\"bad\">stopping</span>" }
        body += " · <a href=\"/metrics\">metrics</a>"
        if let name = viewer.name {
            body += " · signed in as \(HTML.escape(name))"
            if viewer.canAct { body += " " + viewer.form("/logout", button: "Sign out") }
        } else if viewer.tokensConfigured {
            body += " · <a href=\"/login\">sign in</a>"
        }
        body += "</p>"
        body += "<h2>Jobs</h2>" + jobs() + viewer.hint
        body += "<h2>Latest runs</h2>" + latestRuns()
        body += "<h2 id=\"outbox\">Outbox</h2>" + outbox()
        body += "<h2>Latest actions</h2>" + AuditTable(entries: audit).render(showJob: true)
        return HTML.page(title: "Hearth status", refresh: 30, body: body)
    }

    func jobs() -> String {
        let rows = status.jobs.map { j -> [String] in
            var state = HTML.jobState(j) { pause in
                var paused = "<span class=\"tag\">paused</span> " + HTML.time(pause.pausedAt)
                if let note = pause.note, !note.isEmpty { paused += "<br>\(HTML.escape(note))" }
                return paused
            }
            // Local time in the job's zone, without the seconds and the offset (the zone is beside it).
            let fires = j.nextFires.map { HTML.escape(String(LocalTime.format($0, in: j.timeZone).dropLast(10))) }.joined(separator: "<br>")
            var last = "<span class=\"muted\">never run</span>"
            if let r = j.lastRecord {
                last = "<a href=\"/runs/\(HTML.escape(r.runID))\">\(HTML.status(r.status.rawValue))</a> \(HTML.time(r.end))"
            }
            var actions = viewer.form(
                "/jobs/\(j.name)/run", fields: j.pause != nil ? "<input type=\"hidden\" name=\"force\" value=\"true\">" : "", button: "Run now")
            if j.pause != nil {
                actions += viewer.form("/jobs/\(j.name)/resume", button: "Resume")
            } else {
                actions += viewer.form("/jobs/\(j.name)/pause", fields: "<input type=\"text\" name=\"note\" maxlength=\"1000\" placeholder=\"note\" size=\"12\"> ", button: "Pause")
            }
            // A disabled job has no slots and no queue here: nothing to run, pause or resume.
            if !actions.isEmpty, j.enabled { state += "<br>" + actions }
            // What matters most first: on a phone the table scrolls sideways.
            return [
                "<strong><a href=\"/jobs/\(HTML.escape(j.name))\">\(HTML.escape(j.name))</a></strong>", state, fires.isEmpty ? "<span class=\"muted\">—</span>" : fires, last,
                HTML.time(j.lastSuccess), "<code>\(HTML.escape(j.schedule))</code>", HTML.escape(j.timeZone.ianaName),
            ]
        }
        return HTML.table(["Job", "State", "Next three", "Last result", "Last success", "Schedule", "Zone"], rows, wrapping: [1], empty: "No jobs.")
    }

    func latestRuns() -> String {
        let rows = runs.map { r -> [String] in
            let duration = DurationFormat.format(.milliseconds(Int64(max(0, r.end.timeIntervalSince(r.start)) * 1000)))
            var warnings = r.warnings.isEmpty ? "" : "\(r.warnings.count) warning\(r.warnings.count == 1 ? "" : "s")"
            if let error = r.error { warnings += (warnings.isEmpty ? "" : "<br>") + "<span class=\"bad\">\(HTML.escape(Self.firstLine(error)))</span>" }
            return [
                "<a href=\"/jobs/\(HTML.escape(r.job))\">\(HTML.escape(r.job))</a>" + (r.dryRun ? " <span class=\"tag\">dry run</span>" : ""), "<a href=\"/runs/\(HTML.escape(r.runID))\">\(HTML.status(r.status.rawValue))</a>", HTML.escape(r.trigger.rawValue),
                HTML.time(r.logicalTime), HTML.escape(duration), "+\(r.created) ~\(r.updated) -\(r.deleted) · \(r.messagesQueued) msg", warnings,
            ]
        }
        return HTML.table(["Job", "Status (run)", "Trigger", "Logical time", "Duration", "Changes", "Warnings"], rows, wrapping: [6], empty: "No runs yet.")
    }

    func outbox() -> String {
        var s = "<p>\(pending.count) pending, \(dead.count) dead letter\(dead.count == 1 ? "" : "s").</p>"
        s += "<h2>Pending</h2>" + messages(pending, dead: false)
        s += "<h2>Dead letters</h2>" + messages(dead, dead: true)
        return s
    }

    func messages(_ list: [OutboxEnvelope], dead: Bool) -> String {
        let rows = list.prefix(listLimit).map { e -> [String] in
            let tokens = Self.tokens(of: e)
            let targets = e.kind == .push ? tokens.map(Plan.redact) : e.targets.map(\.name)
            let error = dead ? (e.reason ?? e.lastError) : e.lastError
            let retry = dead ? viewer.form("/outbox/\(e.id)/retry", button: "Retry") : ""
            return [
                "<code>\(HTML.escape(e.id))</code>", HTML.escape(e.kind?.rawValue ?? "?"), HTML.escape(e.job ?? ""),
                HTML.escape(targets.joined(separator: ", ")), String(e.attempts),
                dead ? HTML.time(e.finishedAt) : (e.dueAt == .distantPast ? "now" : HTML.time(e.dueAt)),
                HTML.escape(Self.redacting(tokens, in: error ?? "")) + retry,
            ]
        }
        let more = list.count > listLimit ? "<p class=\"muted\">… and \(list.count - listLimit) more (<code>hearth outbox list</code>).</p>" : ""
        return HTML.table(["Message", "Kind", "Job", "Targets", "Attempts", dead ? "Given up" : "Next attempt", "Last error"], Array(rows), wrapping: [6], empty: dead ? "No dead letters." : "Nothing pending.") + more
    }

    /// A push message's device tokens: its targets, or the tokens queued before any attempt.
    static func tokens(of e: OutboxEnvelope) -> [String] {
        guard e.kind == .push else { return [] }
        return e.hasTargets ? e.targets.map(\.name) : (e.queuedTokens ?? [])
    }

    /// `text` with every token replaced by its redacted form.
    static func redacting(_ tokens: [String], in text: String) -> String {
        tokens.filter { $0.count > 6 }.sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: Plan.redact($1)) }
    }

    static func firstLine(_ s: String, limit: Int = 200) -> String {
        let line = s.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }
}
