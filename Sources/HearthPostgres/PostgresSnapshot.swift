/// A run's reads: one REPEATABLE READ, READ ONLY transaction on its own connection, so every
/// document the run reads is from the same moment (docs/storage/postgres.md#reads). Since
/// nothing it reads can change, its single reads read ahead (``PostgresDocuments``). Ends
/// (rolls back, closing the connection) when the last reference to the returned store goes away.
enum PostgresSnapshot {
    static func open(_ backend: PostgresBackend) throws(PostgresError) -> PostgresDocuments {
        let connection = try backend.connect()
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        // The snapshot is taken at the first query, so take it now.
        try connection.query("SELECT 1 FROM documents LIMIT 1")
        return PostgresDocuments(connection: connection, readAhead: true)
    }
}
