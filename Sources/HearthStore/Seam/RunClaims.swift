package import Foundation

/// Who runs what: the cross-process lock that serialises real runs of a job, and, where several
/// daemons share the store, which of them runs a slot.
package protocol RunClaims: Sendable {
    /// Takes the cross-process lock that serialises real runs of `job`, waiting up to `timeout`
    /// (``LockBusyError`` names the holder).
    func lockJob(_ job: String, holder: String, timeout: Duration) async throws -> any StorageLock

    /// Claims slot `logicalTime` of `job` for `holder` (a daemon) for `lease`, so that of
    /// several daemons sharing the store exactly one runs it: false when another holder has
    /// it (its lease not expired) or its run was recorded. The holder's own claim is renewed.
    /// The claim ends (done) with the slot's run record. One daemon per data directory: there,
    /// every claim is granted.
    func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool

    /// Slots of `job` whose claim's lease expired before their run was recorded (their daemon
    /// died mid-run), oldest first: another daemon takes them over with ``claimSlot(job:logicalTime:holder:lease:)``.
    func expiredSlotClaims(job: String) async throws -> [Date]
}

extension RunClaims {
    package func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool { true }
    package func expiredSlotClaims(job: String) async throws -> [Date] { [] }
}
