/// A run's reads: one REPEATABLE READ, READ ONLY transaction on its own connection, so every
/// document the run reads is from the same moment (docs/storage/postgres.md#reads). Since
/// nothing it reads can change, its single reads read ahead (``PostgresDocuments``). Ends
/// (rolls back, closing the connection) when the last reference to the returned store goes away.
package enum PostgresSnapshot {
    /// Begins the snapshot's transaction, with sequential and bitmap scans off for it.
    ///
    /// Every read of a snapshot goes by an index: ids and ranges by the primary key, a `.oneOf`
    /// search by a field index, and a filtered search walks the primary key a page at a time
    /// (``PostgresDocuments/searchStatement(_:)``), stopping once the page is full. But the
    /// planner cannot tell how many rows a condition on a JSON field keeps (it assumes 0.5 % for
    /// each), so for gift-settle's pending gifts — 4 % of a million transactions — it expected
    /// 25 rows, and chose to scan the whole table and sort, once per page of 4,096: 5 of the
    /// 11 s of gift-settle's first run at 100,000 users. Off for the snapshot, that run takes
    /// 6.9 s (docs/storage/postgres.md#reads).
    ///
    /// JIT compilation is off too: the planner's costs for a walk of a large collection pass
    /// `jit_above_cost`, and compiling took 10–12 ms of each page of 4,096 rows that a
    /// filtered walk of a million transactions returns in 30.
    package static let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off"

    static func open(_ backend: PostgresBackend) throws(PostgresError) -> PostgresDocuments {
        let connection = try backend.connect()
        // The snapshot is taken at the first query, so take it now, in the same round trip.
        try connection.execute(begin + "; SELECT 1 FROM documents LIMIT 1")
        return PostgresDocuments(connection: connection, inSnapshot: true)
    }
}
