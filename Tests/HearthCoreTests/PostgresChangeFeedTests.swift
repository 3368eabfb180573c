import Foundation
import Synchronization
import Testing
import HearthKit
import HearthStore
import HearthPostgres
import HearthTestSupport

/// PostgreSQL's change feed (docs/triggers.md#the-change-feed--postgresql): migration 4's
/// triggers notify once per statement and collection, the feed's own connection listens, and
/// `change_claims` gives each batch to one daemon. Real server; every wait is on the feed's
/// events (or a server view) with a timeout. "Nothing else came" is checked by a later write to
/// a `marker` collection: notifications arrive in commit order, so once the marker's batch is
/// in, every earlier one is.
@Suite("the change feed on PostgreSQL")
struct PostgresChangeFeedTests {
    /// Consumes a feed in a task, keeping its events.
    final class Recorder: Sendable {
        let events = Mutex<[ChangeFeedEvent]>([])
        let changed = ChangeNotifier()
        let task: Mutex<Task<Void, Never>?> = Mutex(nil)

        init(_ stream: AsyncStream<ChangeFeedEvent>) {
            let t = Task { [self] in
                for await e in stream {
                    events.withLock { $0.append(e) }
                    changed.notify()
                }
            }
            task.withLock { $0 = t }
        }

        /// Waits until the recorded events meet `condition`; fails the test after 15 s.
        func wait(_ what: String, until condition: ([ChangeFeedEvent]) -> Bool) async throws {
            try await eventually("\(what); got \(events.withLock { $0 })", timeout: .seconds(15), wakingOn: changed) {
                events.withLock { condition($0) }
            }
        }

        /// Waits for the batch of the marker document `id`; returns the events before it.
        func untilMarker(_ id: String) async throws -> [ChangeFeedEvent] {
            let isMarker: (ChangeFeedEvent) -> Bool = {
                if case .changed(let b) = $0 { b.collection == "marker" && b.paths?.map(\.id) == [id] } else { false }
            }
            try await wait("the marker \(id)") { $0.contains(where: isMarker) }
            return events.withLock { Array($0.prefix { !isMarker($0) }) }
        }

        func stop() { task.withLock { $0?.cancel() } }
    }

    /// A migrated database, a backend on it, and a connection of an "app" writing to it.
    static func database() async throws -> (url: String, backend: PostgresBackend, app: PostgresConnection) {
        let url = try await PostgresServer.shared().database()
        return try await BlockingIO.run { () throws(any Error) in
            let app = try PostgresConnection(url: url)
            _ = try PostgresSchema.migrate(app)
            return (url, try PostgresBackend(url: url), app)
        }
    }

    static func sql(_ connection: PostgresConnection, _ statement: String) async throws {
        _ = try await BlockingIO.run { () throws(any Error) in try connection.query(statement) }
    }

    static func insertMarker(_ app: PostgresConnection, _ id: String) async throws {
        try await sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('marker', '\(id)', '{}', nextval('document_versions'))")
    }

    static func paths(_ texts: String...) throws -> [DocumentPath] { try texts.map { try DocumentPath(parsing: $0) } }

    /// The batches among `events` (failing on any other event).
    static func batches(_ events: [ChangeFeedEvent]) -> [ChangeBatch] {
        events.compactMap { e in
            if case .changed(let b) = e { return b }
            Issue.record("unexpected \(e)")
            return nil
        }
    }

    static func withoutSequence(_ b: ChangeBatch) -> ChangeBatch {
        var b = b
        b.sequence = nil
        return b
    }

    @Test func anAppsInsertOfTwoDocumentsIsOneBatchWithNoWriter() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["transactions", "marker"])))
        defer { recorder.stop() }
        try await Self.sql(app, """
            INSERT INTO documents (collection, id, raw, version) VALUES
            ('transactions', 'g2', '{}', nextval('document_versions')), ('transactions', 'g1', '{}', nextval('document_versions'))
            """)
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1"))
        try #require(batches.count == 1, "\(batches)")
        #expect(Self.withoutSequence(batches[0]) == ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1", "transactions/g2"), writer: nil, chain: 0))
        #expect(batches[0].sequence != nil)
    }

    @Test func aDeleteAndAnUpdateAreABatchEachWithLaterSequences() async throws {
        let (_, backend, app) = try await Self.database()
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u1', '{}', 1), ('users', 'u2', '{}', 2)")
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["users", "marker"])))
        defer { recorder.stop() }
        try await Self.sql(app, "UPDATE documents SET raw = '{\"n\": 1}' WHERE collection = 'users' AND id = 'u2'")
        try await Self.sql(app, "DELETE FROM documents WHERE collection = 'users'")
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1"))
        try #require(batches.count == 2, "\(batches)")
        #expect(batches.map(\.paths) == [try Self.paths("users/u2"), try Self.paths("users/u1", "users/u2")])
        let sequences = batches.compactMap(\.sequence)
        #expect(sequences.count == 2 && sequences[0] < sequences[1])
    }

    /// `hearth data import` writes with COPY; a subcollection's document counts for its top-level
    /// collection.
    @Test func aCopyIsOneBatchAndASubcollectionCountsForItsTopLevelCollection() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["users", "marker"])))
        defer { recorder.stop() }
        let rows = Array("users\tu1\t{}\t1\nusers/u1/badges\tb1\t{}\t2\nusers\tu2\t{}\t3\n".utf8)
        let copied = try await BlockingIO.run { () throws(any Error) -> Int in
            var sent = false
            return try app.copyIn("COPY documents (collection, id, raw, version) FROM STDIN") {
                defer { sent = true }
                return sent ? nil : rows
            }
        }
        #expect(copied == 3)
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1"))
        try #require(batches.count == 1, "\(batches)")
        #expect(batches[0].paths == (try Self.paths("users/u1", "users/u1/badges/b1", "users/u2")))
    }

    @Test func aJobsCommitSaysWhichJobAndChainAndAFollowUpCommitSaysNone() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["users", "marker"])))
        defer { recorder.stop() }
        let changeset = try Conformance.creating([("users/u1", #"{"n": 1}"#)])
        let record = Conformance.record("xp-award", "r1", start: 0)
        let commit = RunCommit(job: "xp-award", runID: "r1", changeset: changeset, record: record, chain: 2)
        #expect(try await backend.commit(commit, holder: "test", timeout: .seconds(5)) == .committed)
        let followUp = try Conformance.creating([("users/u2", #"{"n": 2}"#)])
        #expect(try await backend.commitDocuments(followUp, id: "f1", holder: "test", timeout: .seconds(5)) == .committed)
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1")).map(Self.withoutSequence)
        #expect(batches == [
            ChangeBatch(collection: "users", paths: try Self.paths("users/u1"), writer: "xp-award", chain: 2),
            ChangeBatch(collection: "users", paths: try Self.paths("users/u2"), writer: nil, chain: 0),
        ])
    }

    /// 1,000 ids of 10 bytes do not fit in a notification: the batch names none.
    @Test func aStatementWritingMoreIdsThanFitHasNoPaths() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["transactions", "marker"])))
        defer { recorder.stop() }
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) SELECT 'transactions', 'g' || lpad(i::text, 9, '0'), '{}', i FROM generate_series(1, 1000) i")
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1"))
        try #require(batches.count == 1, "\(batches)")
        #expect(batches[0].collection == "transactions")
        #expect(batches[0].paths == nil)
    }

    @Test func writesToCollectionsNotAskedForAreNotDelivered() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["transactions", "marker"])))
        defer { recorder.stop() }
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u1', '{}', 1), ('gigs', 'g1', '{}', 2)")
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u2', '{}', 3), ('transactions', 't1', '{}', 4)")
        try await Self.insertMarker(app, "m1")
        let batches = Self.batches(try await recorder.untilMarker("m1"))
        #expect(batches.map(Self.withoutSequence) == [ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/t1"))])
    }

    /// Two daemons, each with its own backend and feed: both see the write, one takes it.
    @Test func twoDaemonsBothSeeABatchAndExactlyOneClaimsIt() async throws {
        let (url, backend, app) = try await Self.database()
        let other = try await BlockingIO.run { () throws(any Error) in try PostgresBackend(url: url) }
        let first = Recorder(try #require(try backend.changeFeed(collections: ["transactions", "marker"])))
        let second = Recorder(try #require(try other.changeFeed(collections: ["transactions", "marker"])))
        defer {
            first.stop()
            second.stop()
        }
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('transactions', 'g1', '{}', 1)")
        try await Self.insertMarker(app, "m1")
        let seen = [Self.batches(try await first.untilMarker("m1")), Self.batches(try await second.untilMarker("m1"))]
        try #require(seen.map(\.count) == [1, 1], "\(seen)")
        let sequence = try #require(seen[0][0].sequence)
        #expect(seen[1][0].sequence == sequence)

        async let a = backend.claimChanges(job: "gift-settle", sequences: [sequence], holder: "daemon-a")
        async let b = other.claimChanges(job: "gift-settle", sequences: [sequence], holder: "daemon-b")
        let (claimedA, claimedB) = try await (a, b)
        #expect(claimedA.union(claimedB) == [sequence])
        #expect(claimedA.intersection(claimedB).isEmpty)
        // The winner asking again keeps it; the loser still does not get it; another job's
        // claim is its own.
        let winner = claimedA.isEmpty ? "daemon-b" : "daemon-a"
        let loser = claimedA.isEmpty ? "daemon-a" : "daemon-b"
        #expect(try await backend.claimChanges(job: "gift-settle", sequences: [sequence, sequence], holder: winner) == [sequence])
        #expect(try await backend.claimChanges(job: "gift-settle", sequences: [sequence], holder: loser) == [])
        #expect(try await other.claimChanges(job: "friend-notify", sequences: [sequence], holder: loser) == [sequence])
    }

    /// The server ends the feed's connection: the feed connects again, listens again, says
    /// writes may have been lost, and sees later writes.
    @Test func aDroppedConnectionIsLostThenListenedToAgain() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["transactions", "marker"])))
        defer { recorder.stop() }
        let ended = try await BlockingIO.run { () throws(any Error) in
            try app.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hearth change feed'")
        }
        #expect(ended.count == 1)
        try await recorder.wait("a lost event") { events in
            events.contains { if case .lost(let c, _) = $0 { c == ["transactions", "marker"] } else { false } }
        }
        try await Self.sql(app, "INSERT INTO documents (collection, id, raw, version) VALUES ('transactions', 'g1', '{}', 1)")
        try await Self.insertMarker(app, "m1")
        let events = try await recorder.untilMarker("m1")
        let lost = events.filter { if case .lost = $0 { true } else { false } }
        #expect(lost.count == 1)
        #expect(Self.batches(events.filter { if case .changed = $0 { true } else { false } }).map(Self.withoutSequence) == [
            ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))
        ])
    }

    @Test func endingTheStreamClosesTheFeedsConnection() async throws {
        let (_, backend, app) = try await Self.database()
        let recorder = Recorder(try #require(try backend.changeFeed(collections: ["marker"])))
        try await Self.insertMarker(app, "m1")
        _ = try await recorder.untilMarker("m1")
        let count = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hearth change feed'"
        #expect(try await BlockingIO.run { () throws(any Error) in try app.query(count)[0, 0] } == "1")
        recorder.stop()
        // The server's view of its connections changes on no event a client can wait for:
        // asked again until the connection is gone, for at most 15 s.
        var open = "1"
        try await eventually("the feed's connection to close; open: \(open)", timeout: .seconds(15)) {
            open = try await BlockingIO.run { () throws(any Error) in try app.query(count)[0, 0] } ?? "?"
            return open == "0"
        }
        #expect(open == "0")
    }
}
