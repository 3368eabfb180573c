import Foundation
import Testing
import HearthKit
import HearthStore
import HearthPostgres
import HearthTesting
import HearthTestSupport

/// What every ``StorageBackend`` does, asked of each: the data directory, PostgreSQL (a real
/// server, ``PostgresServer``) and HearthTesting's in-memory store (docs/architecture.md#storage).
/// A new backend is added to ``Backend`` and must pass every test here.
@Suite("storage backend conformance")
struct StorageBackendConformanceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case directory, postgres, memory

        var testDescription: String { rawValue }

        /// A new, empty store of this kind and what removes it.
        func make() async throws -> (store: any StorageBackend, remove: @Sendable () -> Void) {
            switch self {
            case .directory:
                let temp = try TempDirectory("hearth-conformance")
                return (try DataDirectory(root: temp.path), { temp.remove() })
            case .postgres:
                let url = try await PostgresServer.shared().database()
                let store = try await BlockingIO.run { () throws(any Error) -> PostgresBackend in
                    _ = try PostgresSchema.migrate(PostgresConnection(url: url))
                    return try PostgresBackend(url: url)
                }
                return (store, {})
            case .memory:
                return (try InMemoryStore(), {})
            }
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T…Z, whole seconds

    static func path(_ text: String) throws -> DocumentPath { try DocumentPath(parsing: text) }

    static func object(_ json: String) throws -> JSONObject {
        guard case .object(let o) = try JSONParser.parse(Array(json.utf8)) else { throw StoreError("not an object: \(json)") }
        return o
    }

    /// A changeset creating each `path → JSON` (expected absent).
    static func creating(_ documents: [(String, String)]) throws -> Changeset {
        var c = Changeset()
        for (p, json) in documents { c.put(path: try path(p), action: .create, before: nil, after: try object(json), expected: nil) }
        return c
    }

    static func record(_ job: String, _ runID: String, start seconds: Double, status: RunRecord.Status = .succeeded, trigger: RunRecord.Trigger = .cli) -> RunRecord {
        let start = t0.addingTimeInterval(seconds)
        return RunRecord(runID: runID, job: job, trigger: trigger, logicalTime: start, start: start, end: start, attempt: 1, status: status, dryRun: false)
    }

    static func commit(_ store: any StorageBackend, _ changeset: Changeset, runID: String = "r1") async throws -> CommitResult {
        let commit = RunCommit(job: "j", runID: runID, changeset: changeset, record: record("j", runID, start: 0))
        return try await store.commit(commit, holder: "test", timeout: .seconds(5))
    }

    /// `n` of each read document, "missing" or "invalid".
    static func outcomes(_ reads: [DocumentRead]) -> [String] {
        reads.map { read in
            switch read {
            case .document(let d): d.object["n"]?.intValue.map(String.init) ?? "?"
            case .missing: "missing"
            case .invalid: "invalid"
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aCommitsDocumentsReadBackInIdOrderWithSubcollectionsApart(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let c = try Self.creating([
            ("users/u2", #"{"n": 2}"#), ("users/u10", #"{"n": 10}"#), ("users/u1", #"{"n": 1}"#), ("users/u1/badges/b1", #"{"n": 100}"#),
        ])
        #expect(try await Self.commit(store, c) == .committed)
        #expect(try store.documentIDs(in: "users") == ["u1", "u10", "u2"])
        #expect(try store.documentIDs(in: "users/u1/badges") == ["b1"])
        #expect(try store.documentIDs(in: "gigs") == [])
        #expect(Self.outcomes(try store.readCollection("users")) == ["1", "10", "2"])
        #expect(Self.outcomes([store.read(try Self.path("users/u3")), store.read(try Self.path("users/u1/badges/b1"))]) == ["missing", "100"])
        let snapshot = try store.readSnapshot()
        #expect(Self.outcomes(snapshot.read([try Self.path("users/u2"), try Self.path("users/u9")][...])) == ["2", "missing"])
        // The bytes the commit wrote are what a read parses (JSONWriter.document's form).
        guard case .document(let d) = store.read(try Self.path("users/u10")) else { Issue.record("users/u10 not read"); return }
        #expect(JSONWriter.document(d.object) == JSONWriter.document(try Self.object(#"{"n": 10}"#)))
        let inspection = try store.inspect(collections: ["users", "gigs"], written: [])
        #expect(inspection.collections == ["users"])
        #expect(inspection.documents == 3)
        #expect(store.healthProblem() == nil)
    }

    @Test(arguments: Backend.allCases)
    func aCommitOverADocumentChangedSinceItWasReadIsAConflictAndWritesNothing(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await Self.commit(store, try Self.creating([("users/u1", #"{"n": 1}"#), ("users/u2", #"{"n": 2}"#)])) == .committed)
        guard case .document(let read) = store.read(try Self.path("users/u1")) else { Issue.record("users/u1 not read"); return }

        // Another writer changes u1 after our read.
        var other = Changeset()
        other.put(path: read.path, action: .update, before: read.object, after: try Self.object(#"{"n": 11}"#), expected: read.version)
        #expect(try await Self.commit(store, other, runID: "r2") == .committed)

        // Ours: u1 from the old read, u2 deleted, u3 created: a conflict on u1, nothing written.
        var ours = Changeset()
        ours.put(path: read.path, action: .update, before: read.object, after: try Self.object(#"{"n": 12}"#), expected: read.version)
        guard case .document(let u2) = store.read(try Self.path("users/u2")) else { Issue.record("users/u2 not read"); return }
        ours.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        ours.put(path: try Self.path("users/u3"), action: .create, before: nil, after: try Self.object(#"{"n": 3}"#), expected: nil)
        #expect(try await Self.commit(store, ours, runID: "r3") == .conflict([read.path]))
        #expect(try await store.commitDocuments(ours, id: "tokens-1", holder: "test", timeout: .seconds(5)) == .conflict([read.path]))
        #expect(Self.outcomes(try store.readCollection("users")) == ["11", "2"])

        // A create over a document that appeared since is a conflict too; commitDocuments
        // writes when nothing changed.
        #expect(try await Self.commit(store, try Self.creating([("users/u2", #"{"n": 22}"#)]), runID: "r4") == .conflict([u2.path]))
        var delete = Changeset()
        delete.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        #expect(try await store.commitDocuments(delete, id: "tokens-2", holder: "test", timeout: .seconds(5)) == .committed)
        #expect(try store.documentIDs(in: "users") == ["u1"])
    }

    @Test(arguments: Backend.allCases)
    func aCommitWhoseRunDependedOnADocumentChangedCreatedOrDeletedSinceIsAConflictAndWritesNothing(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await Self.commit(store, try Self.creating([("users/u1", #"{"n": 1}"#), ("users/u2", #"{"n": 2}"#)])) == .committed)
        guard case .document(let u1) = store.read(try Self.path("users/u1")), case .document(let u2) = store.read(try Self.path("users/u2")) else {
            Issue.record("users not read")
            return
        }
        let u9 = try Self.path("users/u9")

        // Unchanged: the commit goes through.
        var unchanged = try Self.creating([("notes/a", #"{"n": 100}"#)])
        unchanged.depend(on: u1.path, expected: u1.version)
        unchanged.depend(on: u9, expected: nil)
        #expect(try await Self.commit(store, unchanged, runID: "r2") == .committed)

        // Another writer changes u1, creates u9 and deletes u2 after our reads.
        var other = Changeset()
        other.put(path: u1.path, action: .update, before: u1.object, after: try Self.object(#"{"n": 11}"#), expected: u1.version)
        other.put(path: u9, action: .create, before: nil, after: try Self.object(#"{"n": 9}"#), expected: nil)
        other.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        #expect(try await Self.commit(store, other, runID: "r3") == .committed)

        for (depended, expected) in [(u1.path, u1.version), (u9, nil), (u2.path, u2.version)] as [(DocumentPath, DocumentVersion?)] {
            var ours = try Self.creating([("notes/b", #"{"n": 200}"#)])
            ours.depend(on: depended, expected: expected)
            #expect(try await Self.commit(store, ours, runID: "r4") == .conflict([depended]))
            #expect(try await store.commitDocuments(ours, id: "tokens-1", holder: "test", timeout: .seconds(5)) == .conflict([depended]))
            // A run that writes nothing is checked too (a decision it only answers with).
            var answerOnly = Changeset()
            answerOnly.depend(on: depended, expected: expected)
            #expect(try await Self.commit(store, answerOnly, runID: "r5") == .conflict([depended]))
        }
        #expect(try store.documentIDs(in: "notes") == ["a"])
    }

    @Test(arguments: Backend.allCases)
    func runRecordsComeNewestFirstFilteredAndArePrunedOldestFirst(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        // Run ids sort as their starts do (as Runner.makeRunID makes them).
        try await store.saveRecord(Self.record("a", "20261118T000001-0001", start: 1))
        try await store.saveRecord(Self.record("a", "20261118T000003-0003", start: 3, status: .failed))
        try store.writeRecord(Self.record("a", "20261118T000002-0002", start: 2))
        try await store.saveRecord(Self.record("b", "20261118T000004-0004", start: 4))
        let committed = RunCommit(job: "a", runID: "20261118T000005-0005", changeset: Changeset(), record: Self.record("a", "20261118T000005-0005", start: 5))
        #expect(try await store.commit(committed, holder: "test", timeout: .seconds(5)) == .committed)

        #expect(try store.runRecords(job: "a", status: nil, limit: nil).map(\.runID) == [
            "20261118T000005-0005", "20261118T000003-0003", "20261118T000002-0002", "20261118T000001-0001",
        ])
        #expect(try store.runRecords(job: nil, status: nil, limit: 2).map(\.runID) == ["20261118T000005-0005", "20261118T000004-0004"])
        #expect(try store.runRecords(job: "a", status: .failed, limit: nil).map(\.runID) == ["20261118T000003-0003"])
        let first = try #require(try store.runRecords(job: "a", status: .failed, limit: 1).first)
        #expect(first.job == "a" && first.start == Self.t0.addingTimeInterval(3) && first.status == .failed)

        try store.pruneRunRecords(job: "a", keep: 2)
        #expect(try store.runRecords(job: "a", status: nil, limit: nil).map(\.runID) == ["20261118T000005-0005", "20261118T000003-0003"])
        #expect(try store.runRecords(job: "b", status: nil, limit: nil).map(\.runID) == ["20261118T000004-0004"])
    }

    @Test(arguments: Backend.allCases)
    func aRunRecordIsFoundByItsIdWhateverItsJobAndNotOncePruned(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        try await store.saveRecord(Self.record("a", "20261118T000001-0001", start: 1))
        try await store.saveRecord(Self.record("b", "20261118T000002-0002", start: 2, status: .failed))
        let committed = RunCommit(job: "a", runID: "20261118T000003-0003", changeset: Changeset(), record: Self.record("a", "20261118T000003-0003", start: 3))
        #expect(try await store.commit(committed, holder: "test", timeout: .seconds(5)) == .committed)
        #expect(try store.runRecord(id: "20261118T000002-0002").map { ($0.job, $0.status) } ?? ("?", .succeeded) == ("b", .failed))
        #expect(try store.runRecord(id: "20261118T000003-0003")?.job == "a")
        #expect(try store.runRecord(id: "20261118T000009-0009") == nil)
        #expect(try store.runRecord(id: "../a/20261118T000001-0001") == nil)
        try store.pruneRunRecords(job: "a", keep: 1)
        #expect(try store.runRecord(id: "20261118T000001-0001") == nil)
    }

    @Test(arguments: Backend.allCases)
    func schedulerStateIsKeptPerJobAndReplaced(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(store.schedulerState(job: "a") == nil)
        let first = SchedulerStateStore.Entry(job: "a", schedule: "0 * * * *", timeZone: "UTC", lastSlot: Self.t0, updatedAt: Self.t0)
        try store.saveSchedulerState(first)
        #expect(store.schedulerState(job: "a") == first)
        let next = SchedulerStateStore.Entry(job: "a", schedule: "0 * * * *", timeZone: "UTC", lastSlot: Self.t0 + 3600, updatedAt: Self.t0 + 3601)
        try store.saveSchedulerState(next)
        #expect(store.schedulerState(job: "a") == next)
        #expect(store.schedulerState(job: "b") == nil)
    }

    @Test(arguments: Backend.allCases)
    func pausesAreSetReplacedAndCleared(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.pauses().isEmpty)
        let pause = JobPause(job: "a", note: "waiting", pausedAt: Self.t0, pausedBy: "cli")
        try store.setPause(pause)
        try store.setPause(JobPause(job: "b", pausedAt: Self.t0, pausedBy: "daemon"))
        let again = JobPause(job: "a", note: "still waiting", pausedAt: Self.t0 + 60, pausedBy: "cli")
        try store.setPause(again)
        #expect(try store.pauses() == ["a": again, "b": JobPause(job: "b", pausedAt: Self.t0, pausedBy: "daemon")])
        try store.clearPause(job: "a")
        try store.clearPause(job: "a")
        #expect(try store.pauses().keys.sorted() == ["b"])
    }

    @Test(arguments: Backend.allCases)
    func disabledEndpointsAreRecordedByName(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.disabledEndpoints().isEmpty)
        let entry = DisabledEndpoint(configHash: "abc", disabledAt: Self.t0, reason: "410 Gone")
        try store.disableEndpoint("crm", entry)
        #expect(try store.disabledEndpoints() == ["crm": entry])
    }

    @Test(arguments: Backend.allCases)
    func aJobsLockIsHeldUntilReleasedAndABusyOneNamesTheJob(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let lock = try await store.lockJob("a", holder: "pid=1 job=a", timeout: .seconds(5))
        let other = try await store.lockJob("b", holder: "pid=2 job=b", timeout: .seconds(5))
        await #expect {
            _ = try await store.lockJob("a", holder: "pid=3 job=a", timeout: .milliseconds(200))
        } throws: { error in
            // (PostgreSQL's advisory locks do not know their holder: only the job is named.)
            (error as? LockBusyError)?.what == "job a"
        }
        lock.release()
        let again = try await store.lockJob("a", holder: "pid=3 job=a", timeout: .seconds(5))
        again.release()
        other.release()
    }

    @Test(arguments: Backend.allCases)
    func aSlotsClaimGoesToOneHolderAndEndsWithItsRecord(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let shared = store.features.contains(.sharedByDaemons)
        let slot = Self.t0
        #expect(try await store.claimSlot(job: "a", logicalTime: slot, holder: "d1", lease: .seconds(60)))
        #expect(try await store.claimSlot(job: "a", logicalTime: slot, holder: "d1", lease: .seconds(60)))
        // Only a store several daemons share refuses a second holder (a data directory has one daemon).
        #expect(try await store.claimSlot(job: "a", logicalTime: slot, holder: "d2", lease: .seconds(60)) == !shared)
        #expect(try await store.expiredSlotClaims(job: "a") == [])

        // A claim whose lease ran out before its run was recorded is listed, and taken over.
        let late = slot + 60
        #expect(try await store.claimSlot(job: "a", logicalTime: late, holder: "d1", lease: .seconds(-1)))
        #expect(try await store.expiredSlotClaims(job: "a") == (shared ? [late] : []))
        #expect(try await store.claimSlot(job: "a", logicalTime: late, holder: "d2", lease: .seconds(60)))

        // The record ends the claim: nobody else gets the slot, nothing expires.
        var record = Self.record("a", "20261118T000100-0001", start: 60, trigger: .schedule)
        record.logicalTime = late
        try await store.saveRecord(record)
        #expect(try await store.claimSlot(job: "a", logicalTime: late, holder: "d3", lease: .seconds(-1)) == !shared)
        #expect(try await store.expiredSlotClaims(job: "a") == [])
    }

    @Test(arguments: Backend.allCases)
    func theAuditLogKeepsEveryFieldNewestFirstByJobAndLimit(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.auditEntries(job: nil, limit: nil) == [])
        let entries = [
            AuditEntry(time: Self.t0, action: .pause, job: "a", note: "new rates", outcome: "ok", via: .cli, user: "alice", sudoUser: "bob"),
            AuditEntry(time: Self.t0 + 1, action: .run, job: "b", outcome: "refused: b is paused", via: .http, token: "ops", peer: "127.0.0.1"),
            AuditEntry(time: Self.t0 + 2, action: .outboxRetry, job: nil, outcome: "ok", via: .http, token: "ops", peer: "::1", target: "push-1"),
            AuditEntry(time: Self.t0 + 3, action: .resume, job: "a", outcome: "ok", via: .cli, user: "alice"),
        ]
        for e in entries { try store.appendAudit(e) }
        #expect(try store.auditEntries(job: nil, limit: nil) == entries.reversed())
        #expect(try store.auditEntries(job: "a", limit: nil) == [entries[3], entries[0]])
        #expect(try store.auditEntries(job: nil, limit: 2) == [entries[3], entries[2]])
    }
}

