import Foundation
import Testing
import HearthKit
import HearthStore
import HearthPostgres
import HearthTestSupport

/// A PostgreSQL backend's connections go back to its pool when released and come out of it as
/// clean as new ones (docs/storage/postgres.md#connections). Real server.
@Suite("the PostgreSQL connection pool")
struct PostgresConnectionPoolTests {
    static func backend() async throws -> PostgresBackend {
        let url = try await PostgresServer.shared().database()
        return try await BlockingIO.run { () throws(any Error) -> PostgresBackend in
            _ = try PostgresSchema.migrate(PostgresConnection(url: url))
            return try PostgresBackend(url: url)
        }
    }

    static func pid(_ connection: PostgresConnection) throws -> String {
        try connection.query("SELECT pg_backend_pid()")[0, 0] ?? ""
    }

    @Test func aReleasedConnectionIsTheNextOneHandedOut() async throws {
        let backend = try await Self.backend()
        let first = try Self.pid(try backend.connect())
        let second = try Self.pid(try backend.connect())
        #expect(first == second)
        #expect(backend.statements.connections == 1)  // the backend's first, pooled after its schema check
    }

    @Test func aTransactionLeftOpenIsRolledBackBeforeTheConnectionIsReused() async throws {
        let backend = try await Self.backend()
        var pid = ""
        do {
            let c = try backend.connect()
            pid = try Self.pid(c)
            try c.execute("BEGIN")
            try c.query("INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u1', '{}', nextval('document_versions'))")
        }
        let next = try backend.connect()
        #expect(try Self.pid(next) == pid)
        // Outside any transaction: BEGIN … COMMIT works, and the insert is gone.
        let count = try next.transaction { try next.query("SELECT count(*) FROM documents")[0, 0] }
        #expect(count == "0")
    }

    @Test func aConnectionTheServerEndedWhileIdleIsNotHandedOut() async throws {
        let backend = try await Self.backend()
        let pooled = try Self.pid(try backend.connect())  // released: back to the pool
        let admin = try PostgresConnection(url: try await PostgresServer.shared().url("postgres"))
        try admin.query("SELECT pg_terminate_backend(\(pooled))")
        // Once it is gone from the server, its last message is on its socket. The server's view
        // of its backends changes on no event a client can wait for: asked again, at most 15 s.
        try await eventually("backend \(pooled) gone from pg_stat_activity", timeout: .seconds(15)) {
            try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = \(pooled)")[0, 0] == "0"
        }
        let next = try backend.connect()
        #expect(try Self.pid(next) != pooled)
        #expect(try next.query("SELECT 1")[0, 0] == "1")
    }

    @Test func aJobLockReleasedLeavesItsConnectionWithoutLockOrName() async throws {
        let backend = try await Self.backend()
        let lock = try await backend.lockJob("gift-settle", holder: "test holder", timeout: .seconds(5))
        lock.release()
        let c = try backend.connect()
        #expect(try c.query("SELECT current_setting('application_name'), (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())").values == ["", "0"])
        // One connection in all: the backend's first, then the lock's, then this one.
        #expect(backend.statements.connections == 1)
    }
}
