import Logging
import HearthKit
import HearthStore
import HearthOutbound

/// The `job.succeeded` / `job.failed` webhook events every real run emits (docs/outbox-and-webhooks.md#delivery-retries-dead-letters).
///
/// Data: `{job, runId, status, trigger, logicalTime, start, end, attempt, counts: {created,
/// updated, deleted, messagesQueued, documentsRead}, error}`; the message id is
/// `<type>-<job>-<runId>`, so a re-delivered event keeps its `webhook-id`.
///
/// A succeeded run's event is written in the run's own commit (so it exists exactly when the
/// run's writes do), but only when some `[[webhooks]]` endpoint subscribes to it: it is not
/// part of the changeset, the plan or its counts, so an empty run still says `No changes.`
/// A failed, cancelled or conflicting run commits nothing, so its `job.failed` is written
/// straight into `.hearth/outbox/pending/` (temp file, fsync, rename).
extension Runner {
    static let succeededEvent = "job.succeeded"
    static let failedEvent = "job.failed"

    /// Whether some configured endpoint takes events of `type`.
    func webhookSubscribes(to type: String) -> Bool {
        config.webhooks.contains { $0.events.isEmpty || $0.events.contains(type) }
    }

    /// The event for a finished real run.
    static func jobEvent(_ record: RunRecord) -> OutboxMessage {
        let type = record.status == .succeeded || record.status == .succeededWithWarnings ? succeededEvent : failedEvent
        var data = JSONObject([
            ("job", .string(record.job)), ("runId", .string(record.runID)), ("status", .string(record.status.rawValue)),
            ("trigger", .string(record.trigger.rawValue)), ("logicalTime", Timestamp.json(record.logicalTime)),
            ("start", Timestamp.json(record.start)), ("end", Timestamp.json(record.end)), ("attempt", .int(Int64(record.attempt))),
        ])
        data["counts"] = record.json["counts"]
        data["error"] = record.error.map { .string($0) } ?? .null
        return .event(type, id: "\(type)-\(record.job)-\(record.runID)", data: data)
    }

    /// Queues `job.failed` for a real run that failed, was cancelled or ended in conflicts,
    /// when subscribed. A failure to write it is logged, not thrown: the run's own outcome
    /// matters more.
    func emitJobFailed(_ record: RunRecord) async {
        guard !record.dryRun, record.status != .succeeded, record.status != .succeededWithWarnings,
            webhookSubscribes(to: Self.failedEvent)
        else { return }
        do {
            try await store.enqueue(Self.jobEvent(record), job: record.job, runID: record.runID, createdAt: record.end)
        } catch {
            logger.error("could not queue the job.failed event: \(error)", metadata: ["job": "\(record.job)", "run": "\(record.runID)"])
        }
    }
}
