import HearthKit
package import HearthStore

/// The change feed on PostgreSQL (docs/triggers.md#the-change-feed--postgresql): migration 4's
/// triggers notify, a connection of the feed's own listens.
extension PostgresBackend {
    /// Starts listening (a new connection and thread, ``PostgresChangeFeed``); nothing is
    /// delivered for an empty `collections`.
    package func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>? {
        let backend = self
        return try PostgresChangeFeed.start(collections: collections) { try backend.connect() }
    }

    /// A row of `change_claims` per (job, sequence), inserted by the first daemon to ask, so
    /// each batch starts one run across daemons; asking again as the same holder keeps it.
    /// Claims older than an hour (long after any daemon could still ask) go in the same
    /// statement.
    package func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64> {
        if sequences.isEmpty { return [] }
        let connection = self.connection
        let list = "{" + Set(sequences).sorted().map(String.init).joined(separator: ",") + "}"
        return try await BlockingIO.run { () throws(any Error) -> Set<Int64> in
            let rows = try connection.query(
                """
                WITH pruned AS (DELETE FROM change_claims WHERE claimed_at < now() - interval '1 hour')
                INSERT INTO change_claims (job, sequence, claimed_by) SELECT $1, s, $3 FROM unnest($2::bigint[]) AS s
                ON CONFLICT (job, sequence) DO UPDATE SET claimed_by = excluded.claimed_by WHERE change_claims.claimed_by = excluded.claimed_by
                RETURNING sequence
                """,
                [job, list, holder])
            return Set(rows.values.compactMap { $0.flatMap(Int64.init) })
        }
    }
}
