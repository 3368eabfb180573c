package import Foundation
package import HearthKit

/// The record of one run (docs/runs-and-plans.md#runs), kept under `.hearth/runs/<job>/<runId>.json`.
package struct RunRecord: Sendable, Equatable {
    /// `run-now`: asked for over HTTP (the status page or the API) and run by the daemon.
    /// `write`: started by writes to documents the job reads (docs/triggers.md).
    /// `call`: an app called the job (docs/callables.md), or `hearth call`.
    package enum Trigger: String, Sendable, CaseIterable { case schedule, catchUp = "catch-up", cli, retry, backfill, runNow = "run-now", write, call }
    package enum Status: String, Sendable, CaseIterable {
        case succeeded
        case succeededWithWarnings = "succeeded-with-warnings"
        case failed, cancelled
        case skippedOverlap = "skipped-overlap"
        case skippedCatchUp = "skipped-catch-up"
        /// A slot that came while the job was paused (docs/operations/monitoring.md#pause-and-resume).
        case skippedPaused = "skipped-paused"
        case conflict
    }

    package var runID: String
    package var job: String
    package var trigger: Trigger
    package var logicalTime: Date
    package var start: Date
    package var end: Date
    package var attempt: Int
    package var status: Status
    package var dryRun: Bool
    package var created = 0
    package var updated = 0
    package var deleted = 0
    package var messagesQueued = 0
    package var documentsRead = 0
    package var warnings: [String] = []
    package var error: String?
    /// For a run started by writes (trigger `write`): the first ``maxTriggerPaths`` of the
    /// documents written (`transactions/g1`), and how many there were in all; empty and 0 when
    /// the run was told to read everything (docs/triggers.md#what-a-triggered-run-sees).
    package var triggerPaths: [String] = []
    package var triggerPathCount = 0
    /// How many of the run's commits were conflicts, each followed by a run on the new state
    /// (docs/reliability.md#what-a-commit-checks); kept in the record only when not 0.
    package var conflicts = 0
    /// For a call (trigger `call`): the caller's uid (nil: a call without a token) and the
    /// code it was answered with, `OK` for a result (docs/callables.md#run-records). A call a
    /// job refused (`FAILED_PRECONDITION`, …) is a run that succeeded: it wrote nothing, as
    /// its rule says.
    package var callerUID: String?
    package var answer: String?

    /// How many of the paths that started a run its record keeps.
    package static let maxTriggerPaths = 5

    package init(runID: String, job: String, trigger: Trigger, logicalTime: Date, start: Date, end: Date, attempt: Int, status: Status, dryRun: Bool) {
        self.runID = runID
        self.job = job
        self.trigger = trigger
        self.logicalTime = logicalTime
        self.start = start
        self.end = end
        self.attempt = attempt
        self.status = status
        self.dryRun = dryRun
    }

    package var json: JSONObject {
        var o = JSONObject([
            ("runId", .string(runID)), ("job", .string(job)), ("trigger", .string(trigger.rawValue)),
            ("logicalTime", Timestamp.json(logicalTime)), ("start", Timestamp.json(start)), ("end", Timestamp.json(end)),
            ("attempt", .int(Int64(attempt))), ("status", .string(status.rawValue)), ("dryRun", .bool(dryRun)),
            ("counts", .object(JSONObject([
                ("created", .int(Int64(created))), ("updated", .int(Int64(updated))), ("deleted", .int(Int64(deleted))),
                ("messagesQueued", .int(Int64(messagesQueued))), ("documentsRead", .int(Int64(documentsRead))),
            ]))),
            ("warnings", .array(warnings.map { .string($0) })),
        ])
        o["error"] = error.map { .string($0) } ?? .null
        if conflicts > 0 { o["conflicts"] = .int(Int64(conflicts)) }
        if trigger == .write {
            o["triggeredBy"] = .object(JSONObject([("paths", .array(triggerPaths.map { .string($0) })), ("count", .int(Int64(triggerPathCount)))]))
        }
        if trigger == .call || answer != nil {
            o["call"] = .object(JSONObject([("uid", callerUID.map { .string($0) } ?? .null), ("answer", answer.map { .string($0) } ?? .null)]))
        }
        return o
    }

    package init?(json o: JSONObject) {
        guard case .string(let id)? = o["runId"], case .string(let job)? = o["job"],
            let trig = o["trigger"]?.stringValue.flatMap(Trigger.init(rawValue:)),
            let lt = o["logicalTime"].flatMap(Timestamp.date(from:)), let st = o["start"].flatMap(Timestamp.date(from:)),
            let en = o["end"].flatMap(Timestamp.date(from:)), let status = o["status"]?.stringValue.flatMap(Status.init(rawValue:))
        else { return nil }
        self.init(runID: id, job: job, trigger: trig, logicalTime: lt, start: st, end: en, attempt: Int(o["attempt"]?.intValue ?? 1), status: status, dryRun: o["dryRun"]?.boolValue ?? false)
        if case .object(let c)? = o["counts"] {
            created = Int(c["created"]?.intValue ?? 0)
            updated = Int(c["updated"]?.intValue ?? 0)
            deleted = Int(c["deleted"]?.intValue ?? 0)
            messagesQueued = Int(c["messagesQueued"]?.intValue ?? 0)
            documentsRead = Int(c["documentsRead"]?.intValue ?? 0)
        }
        warnings = o["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        error = o["error"]?.stringValue
        conflicts = Int(o["conflicts"]?.intValue ?? 0)
        if case .object(let t)? = o["triggeredBy"] {
            triggerPaths = t["paths"]?.arrayValue?.compactMap(\.stringValue) ?? []
            triggerPathCount = Int(t["count"]?.intValue ?? 0)
        }
        if case .object(let c)? = o["call"] {
            callerUID = c["uid"]?.stringValue
            answer = c["answer"]?.stringValue
        }
    }

    /// Relative path of the record inside the data directory.
    package var relativePath: String { ".hearth/runs/\(job)/\(runID).json" }
}
