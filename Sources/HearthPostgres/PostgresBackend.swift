package import Foundation
package import HearthKit
import HearthStore

/// Hearth's documents, runs, scheduler state and outbox in a PostgreSQL database
/// (docs/storage/postgres.md). Single statements outside a run go through the shared
/// connection, each on a connection borrowed from the pool; a run reads through its own
/// snapshot (``readSnapshot()``); commits are one transaction.
package struct PostgresBackend: StorageBackend {
    /// The connection string; never printed (see ``location``).
    private let url: String
    let connection: PostgresConnection
    let documents: PostgresDocuments
    package let location: String
    /// The statements this backend's connections have sent (for the tests).
    package let statements = PostgresStatementCount()
    /// Connections a run is done with, for its next one.
    let pool = PostgresConnectionPool()

    /// Connects, and checks that `hearth migrate` brought the schema up to date.
    package init(url: String, requireSchema: Bool = true) throws {
        self.url = url
        location = PostgresBackend.describe(url)
        // Connects now, so a wrong URL or a server down fails here; the connection then goes to
        // the pool, for the shared connection's statements, a run's lock or its snapshot.
        let first = try PostgresConnection(url: url, statements: statements, pool: pool)
        if requireSchema {
            let version = try PostgresSchema.currentVersion(first)
            guard version >= PostgresSchema.latest else {
                throw StoreError("the \(location) has schema version \(version); this hearth needs \(PostgresSchema.latest). Run `hearth migrate` first.")
            }
        }
        connection = PostgresConnection.shared(url: url, statements: statements, pool: pool)
        documents = PostgresDocuments(connection: connection)
    }

    /// A connection of its own to the same database (a snapshot, a lock, a deliverer): an idle
    /// one from ``pool`` or a new one.
    package func connect() throws(PostgresError) -> PostgresConnection { try PostgresConnection(url: url, statements: statements, pool: pool) }

    /// `postgres database NAME` — the database's name only: the URL holds a password.
    static func describe(_ url: String) -> String {
        if let c = URLComponents(string: url), c.scheme?.hasPrefix("postgres") == true {
            let name = c.path.split(separator: "/").first.map(String.init) ?? (c.user ?? "")
            return "postgres database \(name.isEmpty ? "(default)" : name)"
        }
        if let part = url.split(separator: " ").first(where: { $0.hasPrefix("dbname=") }) {
            return "postgres database \(part.dropFirst(7))"
        }
        return "postgres database (default)"
    }

    // MARK: DocumentStore

    package func documentIDs(in collection: String) throws(StoreError) -> [String] { try documents.documentIDs(in: collection) }
    package func read(_ path: DocumentPath) -> DocumentRead { documents.read(path) }
    package func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] { try documents.readCollection(collection) }
    package func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int? {
        try documents.search(collection, matching: filter, body)
    }
    package func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String] {
        try documents.ledgerEntries(namespace: namespace, from: from, to: to)
    }
    package func ledgerFiles(namespace: String, before date: Date) throws -> [String] {
        try documents.ledgerFiles(namespace: namespace, before: date)
    }
}
