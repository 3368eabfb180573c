import HearthKit
import HearthStore
import Testing

/// What every backend's ``DocumentStore`` does (``Backend``): documents read back as committed.
@Suite("document store conformance")
struct DocumentStoreConformanceTests {
    @Test(arguments: Backend.allCases)
    func aCommitsDocumentsReadBackInIdOrderWithSubcollectionsApart(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let c = try Conformance.creating([
            ("users/u2", #"{"n": 2}"#), ("users/u10", #"{"n": 10}"#), ("users/u1", #"{"n": 1}"#), ("users/u1/badges/b1", #"{"n": 100}"#),
        ])
        #expect(try await Conformance.commit(store, c) == .committed)
        #expect(try store.documentIDs(in: "users") == ["u1", "u10", "u2"])
        #expect(try store.documentIDs(in: "users/u1/badges") == ["b1"])
        #expect(try store.documentIDs(in: "gigs") == [])
        #expect(Conformance.outcomes(try store.readCollection("users")) == ["1", "10", "2"])
        #expect(Conformance.outcomes([store.read(try Conformance.path("users/u3")), store.read(try Conformance.path("users/u1/badges/b1"))]) == ["missing", "100"])
        let snapshot = try store.readSnapshot()
        #expect(Conformance.outcomes(snapshot.read([try Conformance.path("users/u2"), try Conformance.path("users/u9")][...])) == ["2", "missing"])
        // The bytes the commit wrote are what a read parses (JSONWriter.document's form).
        guard case .document(let d) = store.read(try Conformance.path("users/u10")) else { Issue.record("users/u10 not read"); return }
        #expect(JSONWriter.document(d.object) == JSONWriter.document(try Conformance.object(#"{"n": 10}"#)))
    }
}
