import Foundation
import HearthKit
import HearthStore
import Testing

/// What every backend's ``CommitStore`` does (``Backend``): a commit goes through whole or, when
/// a document it wrote or depended on changed since the run read it, not at all.
@Suite("commit store conformance")
struct CommitStoreConformanceTests {
    @Test(arguments: Backend.allCases)
    func aCommitOverADocumentChangedSinceItWasReadIsAConflictAndWritesNothing(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await Conformance.commit(store, try Conformance.creating([("users/u1", #"{"n": 1}"#), ("users/u2", #"{"n": 2}"#)])) == .committed)
        guard case .document(let read) = store.read(try Conformance.path("users/u1")) else { Issue.record("users/u1 not read"); return }

        // Another writer changes u1 after our read.
        var other = Changeset()
        other.put(path: read.path, action: .update, before: read.object, after: try Conformance.object(#"{"n": 11}"#), expected: read.version)
        #expect(try await Conformance.commit(store, other, runID: "r2") == .committed)

        // Ours: u1 from the old read, u2 deleted, u3 created: a conflict on u1, nothing written.
        var ours = Changeset()
        ours.put(path: read.path, action: .update, before: read.object, after: try Conformance.object(#"{"n": 12}"#), expected: read.version)
        guard case .document(let u2) = store.read(try Conformance.path("users/u2")) else { Issue.record("users/u2 not read"); return }
        ours.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        ours.put(path: try Conformance.path("users/u3"), action: .create, before: nil, after: try Conformance.object(#"{"n": 3}"#), expected: nil)
        #expect(try await Conformance.commit(store, ours, runID: "r3") == .conflict([read.path]))
        #expect(try await store.commitDocuments(ours, id: "tokens-1", holder: "test", timeout: .seconds(5)) == .conflict([read.path]))
        #expect(Conformance.outcomes(try store.readCollection("users")) == ["11", "2"])

        // A create over a document that appeared since is a conflict too; commitDocuments
        // writes when nothing changed.
        #expect(try await Conformance.commit(store, try Conformance.creating([("users/u2", #"{"n": 22}"#)]), runID: "r4") == .conflict([u2.path]))
        var delete = Changeset()
        delete.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        #expect(try await store.commitDocuments(delete, id: "tokens-2", holder: "test", timeout: .seconds(5)) == .committed)
        #expect(try store.documentIDs(in: "users") == ["u1"])
    }

    @Test(arguments: Backend.allCases)
    func aCommitWhoseRunDependedOnADocumentChangedCreatedOrDeletedSinceIsAConflictAndWritesNothing(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await Conformance.commit(store, try Conformance.creating([("users/u1", #"{"n": 1}"#), ("users/u2", #"{"n": 2}"#)])) == .committed)
        guard case .document(let u1) = store.read(try Conformance.path("users/u1")), case .document(let u2) = store.read(try Conformance.path("users/u2")) else {
            Issue.record("users not read")
            return
        }
        let u9 = try Conformance.path("users/u9")

        // Unchanged: the commit goes through.
        var unchanged = try Conformance.creating([("notes/a", #"{"n": 100}"#)])
        unchanged.depend(on: u1.path, expected: u1.version)
        unchanged.depend(on: u9, expected: nil)
        #expect(try await Conformance.commit(store, unchanged, runID: "r2") == .committed)

        // Another writer changes u1, creates u9 and deletes u2 after our reads.
        var other = Changeset()
        other.put(path: u1.path, action: .update, before: u1.object, after: try Conformance.object(#"{"n": 11}"#), expected: u1.version)
        other.put(path: u9, action: .create, before: nil, after: try Conformance.object(#"{"n": 9}"#), expected: nil)
        other.put(path: u2.path, action: .delete, before: u2.object, after: nil, expected: u2.version)
        #expect(try await Conformance.commit(store, other, runID: "r3") == .committed)

        for (depended, expected) in [(u1.path, u1.version), (u9, nil), (u2.path, u2.version)] as [(DocumentPath, DocumentVersion?)] {
            var ours = try Conformance.creating([("notes/b", #"{"n": 200}"#)])
            ours.depend(on: depended, expected: expected)
            #expect(try await Conformance.commit(store, ours, runID: "r4") == .conflict([depended]))
            #expect(try await store.commitDocuments(ours, id: "tokens-1", holder: "test", timeout: .seconds(5)) == .conflict([depended]))
            // A run that writes nothing is checked too (a decision it only answers with).
            var answerOnly = Changeset()
            answerOnly.depend(on: depended, expected: expected)
            #expect(try await Conformance.commit(store, answerOnly, runID: "r5") == .conflict([depended]))
        }
        #expect(try store.documentIDs(in: "notes") == ["a"])
    }

    @Test(arguments: Backend.allCases)
    func aRunsCommitQueuesItsEventsDatedAtItsEndAndKeepsItsRecord(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        var record = Conformance.record("j", "20261118T000010-0001", start: 10)
        record.end = Conformance.t0 + 12
        let events = [
            OutboxMessage.event("job.succeeded", id: "job.succeeded-j-1", data: JSONObject([("job", .string("j"))])),
            OutboxMessage.event("gift.sent", id: "gift.sent-1", data: JSONObject()),
        ]
        let commit = RunCommit(job: "j", runID: record.runID, changeset: try Conformance.creating([("users/u1", #"{"n": 1}"#)]), record: record, events: events)
        #expect(try await store.commit(commit, holder: "test", timeout: .seconds(5)) == .committed)

        let queued = try store.outbox.messages(in: .pending).sorted { $0.id < $1.id }
        #expect(queued.map(\.id) == ["gift.sent-1", "job.succeeded-j-1"])
        #expect(queued.map(\.job) == ["j", "j"])
        #expect(queued.map(\.runID) == [record.runID, record.runID])
        #expect(queued.map(\.createdAt) == [Conformance.t0 + 12, Conformance.t0 + 12])
        #expect(try store.runRecord(id: record.runID) == record)
        #expect(Conformance.outcomes(try store.readCollection("users")) == ["1"])
    }

    @Test(arguments: Backend.allCases)
    func recoveringAStoreNoCrashInterruptedFinishesAndDiscardsNothing(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await Conformance.commit(store, try Conformance.creating([("users/u1", #"{"n": 1}"#)])) == .committed)
        #expect(try await store.recoverInterruptedCommits(holder: "test", timeout: .seconds(5)) == CommitRecovery())
        #expect(Conformance.outcomes(try store.readCollection("users")) == ["1"])
    }
}
