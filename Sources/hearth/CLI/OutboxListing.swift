import Foundation
import HearthKit
import HearthStore
import HearthOutbound
import HearthHost
import HearthHTTP

/// Renders outbox messages for `hearth outbox list` and `hearth outbox dead`. Device tokens
/// are shown by their last 6 characters only. `nextAttemptAt` is null (text: `now`) for a
/// message due at once, and for dead letters.
enum OutboxListing {
    typealias Entry = (folder: OutboxFolder, envelope: OutboxEnvelope)

    static func json(_ entries: [Entry]) -> JSONValue {
        .array(entries.map { folder, e in
            let isPush = e.kind == .push
            var o = JSONObject([
                ("id", .string(e.id)), ("state", .string(folder.rawValue)), ("kind", .string(e.kind?.rawValue ?? "unknown")),
                ("recipient", .string(e.recipient)), ("title", .string(e.title)),
                ("job", e.job.map(JSONValue.string) ?? .null), ("runId", e.runID.map(JSONValue.string) ?? .null),
                ("createdAt", e.createdAt.map(Timestamp.json) ?? .null), ("attempts", .int(Int64(e.attempts))),
                ("nextAttemptAt", folder == .pending && e.dueAt != .distantPast ? Timestamp.json(e.dueAt) : .null),
                ("lastError", e.lastError.map(JSONValue.string) ?? .null),
            ])
            if let reason = e.reason { o["reason"] = .string(reason) }
            if let at = e.finishedAt { o["finishedAt"] = Timestamp.json(at) }
            if isPush, let tokens = e.queuedTokens, !e.hasTargets { o["tokens"] = .array(tokens.map { .string(Plan.redact($0)) }) }
            o["targets"] = .array(e.targets.map { t in
                var to = JSONObject([("target", .string(isPush ? Plan.redact(t.name) : t.name)), ("state", .string(t.state.rawValue))])
                if let error = t.error { to["error"] = .string(error) }
                return .object(to)
            })
            return .object(o)
        })
    }

    static func text(_ entries: [Entry], empty: String) -> String {
        if entries.isEmpty { return empty + "\n" }
        let rows = entries.map { folder, e -> [String] in
            let next = folder == .pending ? (e.dueAt == .distantPast ? "now" : Timestamp.format(e.dueAt)) : "—"
            let note = folder == .pending ? (e.lastError ?? "") : (e.reason ?? e.lastError ?? "")
            return [folder.rawValue, e.id, e.kind?.rawValue ?? "?", e.recipient, String(e.attempts), next, oneLine(note)]
        }
        return Table.render(header: ["STATE", "ID", "KIND", "RECIPIENT", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR"], rows: rows)
    }

    /// `3 messages were dropped (nothing to deliver them to): …/.hearth/outbox/dropped/ (…)`.
    static func droppedSummary(_ count: Int, where location: String) -> String {
        "\(count) message\(count == 1 ? " was" : "s were") dropped (nothing to deliver \(count == 1 ? "it" : "them") to: no subscribing endpoint or no push provider): \(location) (the newest \(OutboxFolder.droppedRetention) are kept; `hearth outbox list --format json` shows them).\n"
    }

    /// Where dropped messages are kept: the data directory's `dropped/` folder, or the outbox
    /// table's rows in folder `dropped`.
    static func droppedLocation(_ queue: any OutboxQueue) -> String { queue.droppedLocation }

    static func oneLine(_ s: String, limit: Int = 160) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
