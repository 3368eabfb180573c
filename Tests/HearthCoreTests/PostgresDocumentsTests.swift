import Foundation
import Testing
import HearthKit
import HearthStore
import HearthPostgres
import HearthTestSupport

/// A run's batched reads on PostgreSQL (docs/storage/postgres.md#reads) return exactly the
/// documents asked for, in the order asked, whatever the shape of the request: a chunk of a
/// collection's listing (one range scan), ascending ids with gaps and missing ones, or ids in
/// any order. Real server.
@Suite("batched reads on PostgreSQL")
struct PostgresDocumentsTests {
    /// 40 users `u00`…`u39` (`{"n": i}`) in a migrated database, and a snapshot over them.
    static func snapshot() async throws -> any DocumentStore {
        let url = try await PostgresServer.shared().database()
        return try await BlockingIO.run { () throws(any Error) -> any DocumentStore in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            for i in 0..<40 {
                try connection.query(
                    "INSERT INTO documents (collection, id, raw, version) VALUES ('users', $1, $2, nextval('document_versions'))",
                    [String(format: "u%02d", i), #"{"n": \#(i)}"#])
            }
            try connection.query("INSERT INTO documents (collection, id, raw, version) VALUES ('gigs', 'g1', '{\"n\": 100}', nextval('document_versions'))")
            return try PostgresBackend(url: url).readSnapshot()
        }
    }

    /// What each read returned: `n` of a document, "missing", or "invalid".
    static func outcomes(_ store: any DocumentStore, _ ids: [(String, String)]) throws -> [String] {
        let paths = try ids.map { try DocumentPath($0.0, $0.1) }
        return store.read(paths[...]).map { read in
            switch read {
            case .document(let d): return d.object["n"]?.intValue.map(String.init) ?? "?"
            case .missing: return "missing"
            case .invalid: return "invalid"
            }
        }
    }

    @Test func aChunkOfTheListingComesBackWhole() async throws {
        let store = try await Self.snapshot()
        let ids = Array(try store.documentIDs(in: "users")[5..<30]).map { ("users", $0) }
        #expect(try Self.outcomes(store, ids) == (5..<30).map(String.init))
    }

    @Test func ascendingIdsWithGapsAndMissingOnesComeBackInOrder() async throws {
        let store = try await Self.snapshot()
        var ids = stride(from: 0, to: 40, by: 2).map { ("users", String(format: "u%02d", $0)) }
        ids.insert(("users", "u07x"), at: 4)
        ids.append(("users", "zz"))
        var expected = stride(from: 0, to: 40, by: 2).map(String.init)
        expected.insert("missing", at: 4)
        expected.append("missing")
        #expect(try Self.outcomes(store, ids) == expected)
    }

    @Test func idsInAnyOrderAndOfSeveralCollectionsComeBackInTheOrderAsked() async throws {
        let store = try await Self.snapshot()
        let order = [39, 3, 17, 0, 25, 11, 30, 8, 21, 2, 36, 14, 5, 28, 19, 33, 1, 9]
        var ids = order.map { ("users", String(format: "u%02d", $0)) }
        ids.insert(("gigs", "g1"), at: 3)
        var expected = order.map(String.init)
        expected.insert("100", at: 3)
        #expect(try Self.outcomes(store, ids) == expected)
    }
}
