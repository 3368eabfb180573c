import Foundation
import HearthStore
import Testing

/// What every backend's ``PauseStore`` does (``Backend``): one pause per job, replaced when set
/// again, gone when cleared.
@Suite("pause store conformance")
struct PauseConformanceTests {
    @Test(arguments: Backend.allCases)
    func pausesAreSetReplacedAndCleared(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.pauses().isEmpty)
        let pause = JobPause(job: "a", note: "waiting", pausedAt: Conformance.t0, pausedBy: "cli")
        try store.setPause(pause)
        try store.setPause(JobPause(job: "b", pausedAt: Conformance.t0, pausedBy: "daemon"))
        let again = JobPause(job: "a", note: "still waiting", pausedAt: Conformance.t0 + 60, pausedBy: "cli")
        try store.setPause(again)
        #expect(try store.pauses() == ["a": again, "b": JobPause(job: "b", pausedAt: Conformance.t0, pausedBy: "daemon")])
        try store.clearPause(job: "a")
        try store.clearPause(job: "a")
        #expect(try store.pauses().keys.sorted() == ["b"])
    }

    @Test(arguments: Backend.allCases)
    func resumingAJobThatIsNotPausedLeavesThePausedOnesPaused(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let pause = JobPause(job: "a", pausedAt: Conformance.t0, pausedBy: "pauseAfterFailures")
        try store.setPause(pause)
        try store.clearPause(job: "b")
        #expect(try store.pauses() == ["a": pause])
    }
}
