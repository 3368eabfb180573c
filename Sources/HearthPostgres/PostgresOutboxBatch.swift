import Foundation
import HearthStore
import HearthKit

/// Rows of `outbox` claimed by one deliverer: its transaction's `FOR UPDATE SKIP LOCKED` row
/// locks (docs/storage/postgres.md#outbox). ``finish(_:)`` writes the outcomes, one statement
/// for the delivered (deleted) and one for the others (updated), and commits.
struct PostgresOutboxBatch: OutboxQueueBatch {
    let queue: PostgresOutbox
    let connection: PostgresConnection
    let messages: [OutboxEnvelope]

    func finish(_ outcomes: [OutboxOutcome]) async throws {
        // An empty claim ended its transaction already.
        guard !messages.isEmpty else { return }
        let connection = self.connection
        let queue = self.queue
        try await BlockingIO.run { () throws(any Error) in
            do {
                var deleted: [String] = []
                var updates: [JSONValue] = []
                var dropped: [OutboxEnvelope] = []
                for outcome in outcomes {
                    switch outcome {
                    case .delivered(let id): deleted.append(id)
                    case .untouched: break
                    case .retry(let envelope): updates.append(Self.row(envelope, folder: .pending))
                    case .finished(let envelope, .dropped): dropped.append(envelope)
                    case .finished(let envelope, let folder): updates.append(Self.row(envelope, folder: folder))
                    }
                }
                // A pass keeps at most `droppedRetention` dropped messages; the others go now.
                let kept = queue.keepDropped(dropped.count)
                updates += dropped.prefix(kept).map { Self.row($0, folder: .dropped) }
                deleted += dropped.dropFirst(kept).map(\.id)
                if !deleted.isEmpty {
                    try connection.query(
                        "DELETE FROM outbox WHERE id IN (SELECT value FROM json_array_elements_text($1::json))",
                        [JSONWriter.compact(.array(deleted.map { .string($0) }))])
                }
                try Self.update(updates, on: connection)
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                queue.forget(connection)
                throw error
            }
        }
    }

    /// Writes `rows` (``row(_:folder:)``) in one statement.
    static func update(_ rows: [JSONValue], on connection: PostgresConnection) throws(PostgresError) {
        guard !rows.isEmpty else { return }
        try connection.query(
            """
            UPDATE outbox SET folder = k.f, envelope = k.e, next_attempt_at = k.t::timestamptz
            FROM json_to_recordset($1::json) AS k(id text, f text, e text, t text) WHERE outbox.id = k.id
            """,
            [JSONWriter.compact(.array(rows))])
    }

    static func row(_ envelope: OutboxEnvelope, folder: OutboxFolder) -> JSONValue {
        .object(JSONObject([
            ("id", .string(envelope.id)), ("f", .string(folder.rawValue)),
            ("e", .string(String(decoding: envelope.bytes, as: UTF8.self))),
            ("t", .string(Timestamp.format(envelope.nextAttemptAt ?? envelope.createdAt ?? Date(timeIntervalSince1970: 0)))),
        ]))
    }
}
