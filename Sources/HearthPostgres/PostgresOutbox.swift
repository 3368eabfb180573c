package import Foundation
import HearthKit
package import HearthStore

/// The outbox in PostgreSQL's `outbox` table (docs/storage/postgres.md#outbox).
///
/// **The claim**: a deliverer opens a transaction on a connection of its own and selects due
/// pending rows `FOR UPDATE SKIP LOCKED`; the row locks are its claim, held while the batch is
/// sent, and the outcomes are written in that same transaction before `COMMIT`. Other
/// deliverers skip locked rows, so several share one queue and never send one message at the
/// same time. A killed deliverer's connection closes, the server rolls its transaction back and
/// the rows are pending again (at least once; receivers dedupe on the stable `webhook-id`, the
/// message id). No lease column is needed, so the schema is migration 1's.
package struct PostgresOutbox: OutboxClaimingQueue {
    let backend: PostgresBackend

    package init(backend: PostgresBackend) {
        self.backend = backend
    }

    package func claimDue(limit: Int, now: Date) async throws -> any OutboxQueueBatch {
        let backend = self.backend
        return try await BlockingIO.run { () throws(any Error) -> any OutboxQueueBatch in
            let connection = try backend.connect()
            try connection.execute("BEGIN")
            do {
                let rows = try connection.query(
                    """
                    SELECT envelope FROM outbox WHERE folder = 'pending' AND next_attempt_at <= $1::timestamptz
                    ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
                    """,
                    [Timestamp.format(now), String(max(1, limit))])
                let messages = rows.values.compactMap { $0.flatMap { OutboxEnvelope(bytes: Array($0.utf8)) } }
                return PostgresOutboxBatch(connection: connection, messages: messages)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    package func messages(in folder: OutboxStore.Folder) throws -> [OutboxEnvelope] {
        try backend.connection.query("SELECT envelope FROM outbox WHERE folder = $1 ORDER BY seq", [folder.rawValue]).values
            .compactMap { $0.flatMap { OutboxEnvelope(bytes: Array($0.utf8)) } }
    }

    package func retry(id: String, now: Date) throws -> Bool {
        let connection = try backend.connect()  // a transaction: a connection of its own
        return try connection.transaction {
            guard let text = try connection.query("SELECT envelope FROM outbox WHERE id = $1 AND folder = 'dead' FOR UPDATE", [id]).values.first,
                let text, var envelope = OutboxEnvelope(bytes: Array(text.utf8))
            else { return false }
            envelope.resetForRetry(now: now)
            try connection.query(
                "UPDATE outbox SET folder = 'pending', envelope = $2, next_attempt_at = $3::timestamptz WHERE id = $1",
                [id, String(decoding: envelope.bytes, as: UTF8.self), Timestamp.format(now)])
            return true
        }
    }

    package func nextDueDate() throws -> Date? {
        let rows = try backend.connection.query("SELECT extract(epoch FROM min(next_attempt_at))::float8 FROM outbox WHERE folder = 'pending'")
        guard let text = rows.values.first, let text, let seconds = Double(text) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
