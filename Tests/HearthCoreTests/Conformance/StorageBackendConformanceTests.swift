import HearthKit
import HearthStore
import Testing

/// What every ``StorageBackend`` does beyond its capabilities (``Backend``): what `hearth check`
/// reports of the store and its health. Each capability has a suite of its own beside this one.
@Suite("storage backend conformance")
struct StorageBackendConformanceTests {
    @Test(arguments: Backend.allCases)
    func anInspectionCountsTheCollectionsHoldingDocumentsAndAReachableStoreHasNoHealthProblem(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let c = try Conformance.creating([("users/u2", #"{"n": 2}"#), ("users/u1", #"{"n": 1}"#), ("users/u1/badges/b1", #"{"n": 100}"#)])
        #expect(try await Conformance.commit(store, c) == .committed)
        let inspection = try store.inspect(collections: ["users", "gigs"], written: [])
        #expect(inspection.collections == ["users"])
        #expect(inspection.documents == 2)
        #expect(inspection.ignored == [])
        #expect(inspection.unkeepable.isEmpty)
        #expect(store.healthProblem() == nil)
    }
}
