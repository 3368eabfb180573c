package import HearthStore

/// Finds the outbox of a storage backend: here, where both backends are known.
package enum OutboxQueues {
    /// The outbox of `store`: the data directory's or PostgreSQL's; nil for another backend.
    package static func queue(of store: any StorageBackend) -> (any OutboxQueue)? {
        if let data = store as? DataDirectory { return DirectoryOutbox(data: data) }
        if let postgres = store as? PostgresBackend { return PostgresOutbox(backend: postgres) }
        return nil
    }
}
