import Foundation
import Testing
import HearthKit
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
        try await snapshot { connection in
            try insert(connection, "users", (0..<40).map { (String(format: "u%02d", $0), #"{"n": \#($0)}"#) })
            try insert(connection, "gigs", [("g1", #"{"n": 100}"#)])
        }
    }

    /// A migrated database that `fill` puts its rows in, and a snapshot over it.
    static func snapshot(_ fill: @escaping @Sendable (PostgresConnection) throws -> Void) async throws -> any DocumentStore {
        let url = try await PostgresServer.shared().database()
        return try await BlockingIO.run { () throws(any Error) -> any DocumentStore in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            try fill(connection)
            return try PostgresBackend(url: url).readSnapshot()
        }
    }

    /// Inserts `rows` (id, raw text) into `collection`, each with a new version.
    static func insert(_ connection: PostgresConnection, _ collection: String, _ rows: [(String, String)]) throws {
        for (id, raw) in rows {
            try connection.query("INSERT INTO documents (collection, id, raw, version) VALUES ($1, $2, $3, nextval('document_versions'))", [collection, id, raw])
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

    /// A filtered scan (docs/storage/reject-memos.md#filters) returns exactly the rows that meet
    /// the filter, and the rows that are not JSON objects, in id order across pages: 13,000
    /// transactions, every third a pending gift, so the 4,334 found take two pages.
    @Test func aFilteredScanReadsOnlyTheMatchingRowsAndTheNonObjectsInIdOrder() async throws {
        let store = try await Self.snapshot { connection in
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'transactions', 'tx' || lpad(i::text, 5, '0'),
                       CASE WHEN i % 3 = 0 THEN '{"type": "gift", "status": "pending", "n": ' || i || '}'
                            ELSE '{"type": "gift", "status": "completed", "n": ' || i || '}' END,
                       nextval('document_versions')
                FROM generate_series(1, 13000) AS i
                """)
            let odd: [(String, String)] = [
                ("a-escaped", #"{"type": "gift", "status": "pend\u0069ng", "n": -1}"#),   // the same string, escaped: found
                ("a-number", #"{"type": "gift", "status": 7, "n": -2}"#),
                ("a-list", #"{"type": "gift", "status": ["pending"], "n": -3}"#),
                ("a-no-type", #"{"status": "pending", "n": -4}"#),
                ("a-array", "[1, 2]"),                                                        // not an object: found, invalid
            ]
            try Self.insert(connection, "transactions", odd)
            try connection.query("INSERT INTO documents (collection, id, raw, version) VALUES ('reports', 'r1', '{\"n\": 1}', 1), ('reports', 'r2', '{\"triagedAt\": null, \"n\": 2}', 2), ('reports', 'r3', '{\"triagedAt\": \"2026-11-18T12:00:00.000Z\", \"n\": 3}', 3)")
        }
        func found(_ collection: String, _ filter: ScanFilter) throws -> (pages: Int, count: Int?, outcomes: [String]) {
            var pages = 0
            var outcomes: [String] = []
            let count = try store.search(collection, matching: filter) { reads in
                pages += 1
                for read in reads {
                    switch read {
                    case .document(let d): outcomes.append("\(d.path.id)=\(d.object["n"]?.intValue ?? 0)")
                    case .invalid(let p, _): outcomes.append("\(p.id) invalid")
                    case .missing(let p): outcomes.append("\(p.id) missing")
                    }
                }
            }
            return (pages, count, outcomes)
        }
        let gifts = try found("transactions", ScanFilter([.equals(field: "type", value: "gift"), .equals(field: "status", value: "pending")]))
        let expected = ["a-array invalid", "a-escaped=-1"] + stride(from: 3, through: 13000, by: 3).map { String(format: "tx%05d=%d", $0, $0) }
        #expect(gifts.outcomes == expected)
        #expect(gifts.count == 4335)
        #expect(gifts.pages == 2)
        let untriaged = try found("reports", ScanFilter([.absentOrNull(field: "triagedAt")]))
        #expect(untriaged.outcomes == ["r1=1", "r2=2"])
        #expect(untriaged.count == 2 && untriaged.pages == 1)
    }

    /// A `.oneOf` search (docs/storage/field-indexes.md) returns the rows whose field holds one
    /// of the strings — not a number spelled the same, not a list — and the non-objects, in id
    /// order, through the partial index of migration 4 rather than a walk of the collection:
    /// 20,000 messages in 2,000 conversations.
    @Test func aOneOfSearchFindsAConversationsMessagesThroughItsIndex() async throws {
        let url = try await PostgresServer.shared().database()
        let (store, plan) = try await BlockingIO.run { () throws(any Error) -> (any DocumentStore, String) in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'messages', 'm' || lpad(i::text, 5, '0'), '{"conversationId": "c' || (i % 2000) || '", "n": ' || i || '}', nextval('document_versions')
                FROM generate_series(1, 20000) AS i
                """)
            let odd: [(String, String)] = [
                ("a-number", #"{"conversationId": 7, "n": -1}"#),
                ("a-list", #"{"conversationId": ["c7"], "n": -2}"#),
                ("a-escaped", #"{"conversationId": "\u0063\u0037", "n": -3}"#),   // "c7", escaped: found
                ("a-array", "[1, 2]"),                                                // not an object: found, invalid
            ]
            for (id, raw) in odd {
                try connection.query("INSERT INTO documents (collection, id, raw, version) VALUES ('messages', $1, $2, nextval('document_versions'))", [id, raw])
            }
            // A friendship with the same field value: another collection, not found.
            try connection.query(#"INSERT INTO documents (collection, id, raw, version) VALUES ('chats', 'x', '{"conversationId": "c7"}', 1)"#)
            try connection.execute("ANALYZE documents")
            let (sql, parameters) = PostgresDocuments.searchStatement(ScanFilter([.oneOf(field: "conversationId", values: ["c7", "c1999"])]))
            let explained = try connection.query("EXPLAIN " + sql, ["messages", "", "4096"] + parameters)
            return (try PostgresBackend(url: url).readSnapshot(), explained.values.compactMap { $0 }.joined(separator: "\n"))
        }
        var outcomes: [String] = []
        let count = try store.search("messages", matching: ScanFilter([.oneOf(field: "conversationId", values: ["c7", "c1999", "7"])])) { reads in
            for read in reads {
                switch read {
                case .document(let d): outcomes.append("\(d.path.id)=\(d.object["n"]?.intValue ?? 0)")
                case .invalid(let p, _): outcomes.append("\(p.id) invalid")
                case .missing(let p): outcomes.append("\(p.id) missing")
                }
            }
        }
        let expected = ["a-array invalid", "a-escaped=-3"] + (stride(from: 7, through: 20000, by: 2000).map { $0 } + stride(from: 1999, through: 20000, by: 2000).map { $0 }).sorted()
            .map { String(format: "m%05d=%d", $0, $0) }
        #expect(outcomes == expected)
        #expect(count == 22)
        #expect(plan.contains("documents_messages_conversation"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
        let none = try store.search("messages", matching: ScanFilter([.oneOf(field: "conversationId", values: ["nope"])])) { _ in }
        #expect(none == 1, "the one non-object row")
    }
    /// In a snapshot, a filtered search goes by the partial index whose predicate is its filter
    /// (migration 6: gift-settle's pending gifts), and a filter with no such index walks the
    /// primary key, stopping at a page, even though the planner, unable to estimate a condition
    /// on a JSON field, expects almost nothing to match: 20,000 transactions, one in 25 a pending
    /// gift, beside 60,000 rows of another collection. Outside a snapshot the unindexed search
    /// reads the whole table (at 100,000 users, the plan each page of gift-settle's scan had
    /// before, docs/storage/postgres.md#reads).
    @Test func aFilteredSearchInASnapshotGoesByItsFilterIndexOrWalksThePrimaryKey() async throws {
        let url = try await PostgresServer.shared().database()
        let (pending, completed, outside) = try await BlockingIO.run { () throws(any Error) -> (String, String, String) in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'transactions', 't' || lpad(i::text, 6, '0'),
                       '{"type": "gift", "status": "' || CASE WHEN i % 25 = 0 THEN 'pending' ELSE 'completed' END || '", "amount": ' || i || ', "note": "' || repeat('x', 200) || '"}',
                       nextval('document_versions')
                FROM generate_series(1, 20000) AS i
                """)
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'notifications', 'n' || lpad(i::text, 6, '0'), '{"userId": "u' || (i % 1000) || '", "note": "' || repeat('y', 200) || '"}', nextval('document_versions')
                FROM generate_series(1, 60000) AS i
                """)
            try connection.execute("VACUUM ANALYZE documents")
            func plan(_ status: String) throws -> String {
                let (sql, parameters) = PostgresDocuments.searchStatement(ScanFilter([.equals(field: "type", value: "gift"), .equals(field: "status", value: status)]))
                return try connection.query("EXPLAIN " + sql, ["transactions", "", "4096"] + parameters).values.compactMap { $0 }.joined(separator: "\n")
            }
            let outside = try plan("completed")
            try connection.execute(PostgresSnapshot.begin)
            let pending = try plan("pending")
            let completed = try plan("completed")
            try connection.execute("ROLLBACK")
            return (pending, completed, outside)
        }
        func sorts(_ plan: String) -> Bool { plan.contains("->  Sort ") || plan.hasPrefix("Sort ") || plan.contains("Seq Scan") || plan.contains("Bitmap") }
        #expect(pending.contains("Index Scan using documents_transactions_pending_gifts"), "\(pending)")
        #expect(!pending.contains("documents_pkey") && !sorts(pending), "\(pending)")
        #expect(completed.contains("Index Scan using documents_pkey") && !sorts(completed), "\(completed)")
        // Without the snapshot's settings: every row of the collection fetched, filtered and sorted for one page.
        #expect(sorts(outside), "without the snapshot's settings: \(outside)")
    }

    /// Autovacuum processes `documents` once 2 % of its rows changed (migration 6,
    /// docs/storage/postgres.md#schema), not PostgreSQL's 20 %.
    @Test func theDocumentsTableIsVacuumedOnceTwoPercentOfItChanged() async throws {
        let url = try await PostgresServer.shared().database()
        let options = try await BlockingIO.run { () throws(any Error) -> [String] in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            return try connection.query("SELECT unnest(reloptions) FROM pg_class WHERE relname = 'documents' ORDER BY 1").values.compactMap { $0 }
        }
        #expect(options == [
            "autovacuum_analyze_scale_factor=0.02", "autovacuum_vacuum_insert_scale_factor=0.02", "autovacuum_vacuum_scale_factor=0.02",
        ])
    }

    /// A whole collection read in a snapshot comes as one `COPY … (FORMAT binary)`, in id
    /// order, chunk after chunk, the non-objects among them as invalid, exactly what listing the
    /// ids and reading them gives: 1,000 users, ids with bytes that sort differently in other
    /// collations, a row whose `raw` holds a tab, a newline, a backslash and non-ASCII text.
    @Test func aCollectionStreamedInASnapshotIsWhatListingAndReadingGive() async throws {
        let store = try await Self.snapshot { connection in
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'users', 'u' || lpad(i::text, 4, '0'), '{"n": ' || i || '}', nextval('document_versions') FROM generate_series(1, 1000) AS i
                """)
            let odd: [(String, String)] = [
                ("U-upper", #"{"n": -1}"#),
                ("u_", "{\"n\": -2,\t\"s\": \"a\\\\b \u{e9}\u{1F600}\"\n}"),
                ("u-array", "[1]"),
            ]
            try Self.insert(connection, "users", odd)
            try Self.insert(connection, "users/u0001/badges", [("b", #"{"n": 9}"#)])
        }
        func describe(_ read: DocumentRead) -> String {
            switch read {
            case .document(let d): return "\(d.path.relativeFile) n=\(d.object["n"]?.intValue ?? 0) s=\(d.object["s"]?.stringValue ?? "") v=\(d.version.size)/\(d.version.mtimeSeconds)"
            case .invalid(let p, let issue): return "\(p.relativeFile) invalid: \(issue.message)"
            case .missing(let p): return "\(p.relativeFile) missing"
            }
        }
        var chunks: [@Sendable () -> [DocumentRead]] = []
        let count = try store.stream("users") { chunks.append($0) }
        let streamed = chunks.flatMap { $0() }.map(describe)
        let ids = try store.documentIDs(in: "users")
        let listed = store.read(ArraySlice(try ids.map { try DocumentPath("users", $0) })).map(describe)
        #expect(count == 1003)
        #expect(chunks.count == 4, "chunks of 256")
        #expect(streamed == listed)
        #expect(streamed.first?.hasPrefix("users/U-upper.json n=-1") == true)
        #expect(streamed.contains { $0.hasPrefix("users/u_.json n=-2 s=a\\b \u{e9}\u{1F600}") })
        #expect(streamed.contains { $0.hasPrefix("users/u-array.json invalid") })
        let badges = try store.stream("users/u0001/badges") { chunks = [$0] }
        #expect(badges == 1 && chunks.count == 1 && chunks[0]().map(describe).first?.hasPrefix("users/u0001/badges/b.json n=9") == true)
        #expect(try store.stream("nothing") { _ in Issue.record("no chunk for an empty collection") } == 0)
    }

    /// A connection the server ends in the middle of a streamed read fails the read with
    /// what libpq says of it, never a short collection; a new snapshot reads it all.
    @Test func aConnectionLostWhileStreamingFailsTheReadAndTheNextSnapshotReadsEverything() async throws {
        let url = try await PostgresServer.shared().database()
        let admin = try await BlockingIO.run { () throws(any Error) -> PostgresConnection in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT 'transactions', 't' || lpad(i::text, 6, '0'), '{"n": ' || i || ', "note": "' || repeat('z', 2000) || '"}', nextval('document_versions')
                FROM generate_series(1, 50000) AS i
                """)
            return connection
        }
        let failure = await BlockingIO.run { () -> String in
            do {
                let store = try PostgresBackend(url: url).readSnapshot()
                var chunks = 0
                _ = try store.stream("transactions") { _ in
                    chunks += 1
                    if chunks == 1 {
                        try admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY (SELECT id, raw%'")
                    }
                }
                return "read \(chunks) chunks without an error"
            } catch {
                return "\(error)"
            }
        }
        // The server's own message when it gets through, else libpq's: a full socket buffer can hold it back.
        #expect(failure.hasPrefix("PostgreSQL: ") && failure.hasSuffix("(in COPY …)")
            && (failure.contains("terminating connection due to administrator command") || failure.contains("server closed the connection unexpectedly")), "\(failure)")
        let count = try await BlockingIO.run { () throws(any Error) -> Int? in
            try PostgresBackend(url: url).readSnapshot().stream("transactions") { _ in }
        }
        #expect(count == 50000)
    }
}
