public import Foundation
public import HearthKit

/// The record of one run (SPEC §4), kept under `.hearth/runs/<job>/<runId>.json`.
public struct RunRecord: Sendable, Equatable {
    public enum Trigger: String, Sendable, CaseIterable { case schedule, catchUp = "catch-up", cli, retry, backfill }
    public enum Status: String, Sendable, CaseIterable {
        case succeeded
        case succeededWithWarnings = "succeeded-with-warnings"
        case failed, cancelled
        case skippedOverlap = "skipped-overlap"
        case skippedCatchUp = "skipped-catch-up"
        case conflict
    }

    public var runID: String
    public var job: String
    public var trigger: Trigger
    public var logicalTime: Date
    public var start: Date
    public var end: Date
    public var attempt: Int
    public var status: Status
    public var dryRun: Bool
    public var created = 0
    public var updated = 0
    public var deleted = 0
    public var messagesQueued = 0
    public var documentsRead = 0
    public var warnings: [String] = []
    public var error: String?

    public init(runID: String, job: String, trigger: Trigger, logicalTime: Date, start: Date, end: Date, attempt: Int, status: Status, dryRun: Bool) {
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

    public var json: JSONObject {
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
        return o
    }

    public init?(json o: JSONObject) {
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
    }

    /// Relative path of the record inside the data directory.
    public var relativePath: String { ".hearth/runs/\(job)/\(runID).json" }
}
