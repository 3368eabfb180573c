import HearthStore
import Testing

/// What every backend's ``ChangeFeed`` does (``Backend``): each write batch starts one run of a
/// job, whichever daemon claims it.
@Suite("change feed conformance")
struct ChangeFeedConformanceTests {
    @Test(arguments: Backend.allCases)
    func eachBatchOfAJobGoesToTheFirstDaemonToClaimItWhereDaemonsShareTheStore(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let shared = store.features.contains(.sharedByDaemons)
        #expect(try await store.claimChanges(job: "a", sequences: [1, 2], holder: "d1") == [1, 2])
        // The same daemon asking again keeps its batches.
        #expect(try await store.claimChanges(job: "a", sequences: [2], holder: "d1") == [2])
        // Only a store several daemons share refuses another daemon (a data directory has one).
        #expect(try await store.claimChanges(job: "a", sequences: [2, 3], holder: "d2") == (shared ? [3] : [2, 3]))
        // Each job takes each batch once: another job's claims are its own.
        #expect(try await store.claimChanges(job: "b", sequences: [1, 2], holder: "d2") == [1, 2])
        #expect(try await store.claimChanges(job: "a", sequences: [], holder: "d1") == [])
    }
}
