import Testing
import HearthKit
import HearthPostgres
import HearthTestSupport
@testable import Jobs

/// Migration 6 writes each job's scan filter out again as an index predicate
/// (docs/storage/postgres.md#schema); PostgreSQL uses the index only while the two are the
/// same. Each job's own filter constant, planned as its scan plans it in a snapshot, must go by
/// its index: a filter changed in the job and not in a new migration fails here.
@Suite("filter indexes of the jobs' scans on PostgreSQL")
struct PostgresFilterIndexTests {
    static let scans: [(collection: String, filter: ScanFilter, index: String)] = [
        ("transactions", GiftSettle.pendingGifts, "documents_transactions_pending_gifts"),
        ("reports", ReportTriage.untriaged, "documents_reports_untriaged"),
    ]

    @Test func eachJobsFilteredScanGoesByItsIndex() async throws {
        let url = try await PostgresServer.shared().database()
        let plans = try await BlockingIO.run { () throws(any Error) -> [String] in
            let connection = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(connection)
            try connection.query("""
                INSERT INTO documents (collection, id, raw, version)
                SELECT c, 'd' || lpad(i::text, 5, '0'), '{"type": "gift", "status": "completed", "triagedAt": "2026-11-18T12:00:00.000Z"}', nextval('document_versions')
                FROM generate_series(1, 5000) AS i, unnest(ARRAY['transactions', 'reports']) AS c
                """)
            try connection.execute("VACUUM ANALYZE documents")
            try connection.execute(PostgresSnapshot.begin)
            defer { try? connection.execute("ROLLBACK") }
            return try Self.scans.map { scan in
                let (sql, parameters) = PostgresDocuments.searchStatement(scan.filter)
                return try connection.query("EXPLAIN " + sql, [scan.collection, "", "4096"] + parameters).values.compactMap { $0 }.joined(separator: "\n")
            }
        }
        for (scan, plan) in zip(Self.scans, plans) {
            #expect(plan.contains("Index Scan using \(scan.index)"), "\(scan.collection): \(plan)")
        }
    }
}
