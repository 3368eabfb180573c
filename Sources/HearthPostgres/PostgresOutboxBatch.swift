import Foundation
import HearthStore
import HearthKit

/// Rows of `outbox` claimed by one deliverer: its transaction's `FOR UPDATE SKIP LOCKED` row
/// locks (docs/storage/postgres.md#outbox). ``finish(_:)`` writes the outcomes and commits.
struct PostgresOutboxBatch: OutboxQueueBatch {
    let connection: PostgresConnection
    let messages: [OutboxEnvelope]

    func finish(_ outcomes: [OutboxOutcome]) async throws {
        let connection = self.connection
        try await BlockingIO.run { () throws(any Error) in
            do {
                var delivered: [String] = []
                var updates: [JSONValue] = []
                for outcome in outcomes {
                    switch outcome {
                    case .delivered(let id): delivered.append(id)
                    case .untouched: break
                    case .retry(let envelope):
                        updates.append(Self.row(envelope, folder: .pending))
                    case .finished(let envelope, let folder):
                        updates.append(Self.row(envelope, folder: folder))
                    }
                }
                if !delivered.isEmpty {
                    try connection.query(
                        "DELETE FROM outbox WHERE id IN (SELECT value FROM json_array_elements_text($1::json))",
                        [JSONWriter.compact(.array(delivered.map { .string($0) }))])
                }
                if !updates.isEmpty {
                    try connection.query(
                        """
                        UPDATE outbox SET folder = k.f, envelope = k.e, next_attempt_at = k.t::timestamptz
                        FROM json_to_recordset($1::json) AS k(id text, f text, e text, t text) WHERE outbox.id = k.id
                        """,
                        [JSONWriter.compact(.array(updates))])
                }
                if outcomes.contains(where: { if case .finished(_, .dropped) = $0 { true } else { false } }) {
                    // Dropped messages are kept for inspection, the newest `droppedRetention` only.
                    try connection.query(
                        "DELETE FROM outbox WHERE folder = 'dropped' AND seq < (SELECT min(seq) FROM (SELECT seq FROM outbox WHERE folder = 'dropped' ORDER BY seq DESC LIMIT $1) AS kept)",
                        [String(OutboxStore.droppedRetention)])
                }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    static func row(_ envelope: OutboxEnvelope, folder: OutboxStore.Folder) -> JSONValue {
        .object(JSONObject([
            ("id", .string(envelope.id)), ("f", .string(folder.rawValue)),
            ("e", .string(String(decoding: envelope.bytes, as: UTF8.self))),
            ("t", .string(Timestamp.format(envelope.nextAttemptAt ?? envelope.createdAt ?? Date(timeIntervalSince1970: 0)))),
        ]))
    }
}
