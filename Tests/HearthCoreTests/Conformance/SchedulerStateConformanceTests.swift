import Foundation
import HearthStore
import Testing

/// What every backend's ``SchedulerStateStore`` does (``Backend``): each job's last handled slot,
/// kept as saved.
@Suite("scheduler state conformance")
struct SchedulerStateConformanceTests {
    @Test(arguments: Backend.allCases)
    func schedulerStateIsKeptPerJobAndReplaced(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(store.schedulerState(job: "a") == nil)
        let first = SchedulerState(job: "a", schedule: "0 * * * *", timeZone: "UTC", lastSlot: Conformance.t0, updatedAt: Conformance.t0)
        try store.saveSchedulerState(first)
        #expect(store.schedulerState(job: "a") == first)
        let next = SchedulerState(job: "a", schedule: "0 * * * *", timeZone: "UTC", lastSlot: Conformance.t0 + 3600, updatedAt: Conformance.t0 + 3601)
        try store.saveSchedulerState(next)
        #expect(store.schedulerState(job: "a") == next)
        #expect(store.schedulerState(job: "b") == nil)
    }

    @Test(arguments: Backend.allCases)
    func savingOneJobsStateLeavesTheOthersAsTheyWere(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let a = SchedulerState(job: "a", schedule: "0 * * * *", timeZone: "UTC", lastSlot: Conformance.t0, updatedAt: Conformance.t0)
        let b = SchedulerState(job: "b", schedule: "*/15 * * * *", timeZone: "Europe/Paris", lastSlot: Conformance.t0 + 900, updatedAt: Conformance.t0 + 901)
        try store.saveSchedulerState(a)
        try store.saveSchedulerState(b)
        #expect(store.schedulerState(job: "a") == a)
        #expect(store.schedulerState(job: "b") == b)
    }
}
