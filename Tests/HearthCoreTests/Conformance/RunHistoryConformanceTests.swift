import Foundation
import HearthKit
import HearthStore
import Testing

/// What every backend's ``RunHistoryStore`` does (``Backend``): records listed newest first,
/// found by id, replaced by id, pruned oldest first.
@Suite("run history conformance")
struct RunHistoryConformanceTests {
    @Test(arguments: Backend.allCases)
    func runRecordsComeNewestFirstFilteredAndArePrunedOldestFirst(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        // Run ids sort as their starts do (as Runner.makeRunID makes them).
        try await store.saveRecord(Conformance.record("a", "20261118T000001-0001", start: 1))
        try await store.saveRecord(Conformance.record("a", "20261118T000003-0003", start: 3, status: .failed))
        try store.writeRecord(Conformance.record("a", "20261118T000002-0002", start: 2))
        try await store.saveRecord(Conformance.record("b", "20261118T000004-0004", start: 4))
        let committed = RunCommit(job: "a", runID: "20261118T000005-0005", changeset: Changeset(), record: Conformance.record("a", "20261118T000005-0005", start: 5))
        #expect(try await store.commit(committed, holder: "test", timeout: .seconds(5)) == .committed)

        #expect(try store.runRecords(job: "a", status: nil, limit: nil).map(\.runID) == [
            "20261118T000005-0005", "20261118T000003-0003", "20261118T000002-0002", "20261118T000001-0001",
        ])
        #expect(try store.runRecords(job: nil, status: nil, limit: 2).map(\.runID) == ["20261118T000005-0005", "20261118T000004-0004"])
        #expect(try store.runRecords(job: "a", status: .failed, limit: nil).map(\.runID) == ["20261118T000003-0003"])
        let first = try #require(try store.runRecords(job: "a", status: .failed, limit: 1).first)
        #expect(first.job == "a" && first.start == Conformance.t0.addingTimeInterval(3) && first.status == .failed)

        try store.pruneRunRecords(job: "a", keep: 2)
        #expect(try store.runRecords(job: "a", status: nil, limit: nil).map(\.runID) == ["20261118T000005-0005", "20261118T000003-0003"])
        #expect(try store.runRecords(job: "b", status: nil, limit: nil).map(\.runID) == ["20261118T000004-0004"])
    }

    @Test(arguments: Backend.allCases)
    func aRunRecordIsFoundByItsIdWhateverItsJobAndNotOncePruned(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        try await store.saveRecord(Conformance.record("a", "20261118T000001-0001", start: 1))
        try await store.saveRecord(Conformance.record("b", "20261118T000002-0002", start: 2, status: .failed))
        let committed = RunCommit(job: "a", runID: "20261118T000003-0003", changeset: Changeset(), record: Conformance.record("a", "20261118T000003-0003", start: 3))
        #expect(try await store.commit(committed, holder: "test", timeout: .seconds(5)) == .committed)
        #expect(try store.runRecord(id: "20261118T000002-0002").map { ($0.job, $0.status) } ?? ("?", .succeeded) == ("b", .failed))
        #expect(try store.runRecord(id: "20261118T000003-0003")?.job == "a")
        #expect(try store.runRecord(id: "20261118T000009-0009") == nil)
        #expect(try store.runRecord(id: "../a/20261118T000001-0001") == nil)
        try store.pruneRunRecords(job: "a", keep: 1)
        #expect(try store.runRecord(id: "20261118T000001-0001") == nil)
    }

    @Test(arguments: Backend.allCases)
    func aRecordSavedAgainUnderItsRunIdReplacesTheEarlierOne(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        try await store.saveRecord(Conformance.record("a", "20261118T000001-0001", start: 1, status: .failed))
        let again = Conformance.record("a", "20261118T000001-0001", start: 1, status: .cancelled)
        try store.writeRecord(again)
        #expect(try store.runRecords(job: "a", status: nil, limit: nil) == [again])
        #expect(try store.runRecord(id: "20261118T000001-0001") == again)
    }

    @Test(arguments: Backend.allCases)
    func pruningAJobWithNoMoreRecordsThanItKeepsRemovesNone(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        try store.pruneRunRecords(job: "a", keep: 2)
        try await store.saveRecord(Conformance.record("a", "20261118T000001-0001", start: 1))
        try await store.saveRecord(Conformance.record("a", "20261118T000002-0002", start: 2))
        try store.pruneRunRecords(job: "a", keep: 2)
        try store.pruneRunRecords(job: "b", keep: 0)
        #expect(try store.runRecords(job: "a", status: nil, limit: nil).map(\.runID) == ["20261118T000002-0002", "20261118T000001-0001"])
    }
}
