import Foundation
import HearthKit
import HearthStore
import Testing

/// What every backend's ``RunClaims`` does (``Backend``): one run of a job at a time, and, where
/// daemons share the store, one daemon per slot.
@Suite("run claims conformance")
struct RunClaimsConformanceTests {
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
        let slot = Conformance.t0
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
        var record = Conformance.record("a", "20261118T000100-0001", start: 60, trigger: .schedule)
        record.logicalTime = late
        try await store.saveRecord(record)
        #expect(try await store.claimSlot(job: "a", logicalTime: late, holder: "d3", lease: .seconds(-1)) == !shared)
        #expect(try await store.expiredSlotClaims(job: "a") == [])
    }

    @Test(arguments: Backend.allCases)
    func aSlotsClaimLeavesOtherSlotsAndOtherJobsFree(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try await store.claimSlot(job: "a", logicalTime: Conformance.t0, holder: "d1", lease: .seconds(60)))
        #expect(try await store.claimSlot(job: "a", logicalTime: Conformance.t0 + 60, holder: "d2", lease: .seconds(60)))
        #expect(try await store.claimSlot(job: "b", logicalTime: Conformance.t0, holder: "d2", lease: .seconds(60)))
        #expect(try await store.expiredSlotClaims(job: "a") == [])
        #expect(try await store.expiredSlotClaims(job: "b") == [])
    }
}
