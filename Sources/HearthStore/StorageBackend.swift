package import Foundation
package import HearthKit

/// Where Hearth keeps the apps' documents and its own state: the seam between the runner and
/// a backend (the data directory today; docs/architecture.md#storage).
///
/// A backend reads documents (``DocumentStore``) and, for real runs, commits a run's changeset
/// together with its outbox messages, ledger entries and run record atomically, after checking
/// that no document it writes changed since the run read it. It also serialises runs of the
/// same job across processes, finishes commits a crash interrupted, and keeps the run history,
/// the scheduler's state and the outbox queue. Every method that may block runs its blocking
/// part through ``BlockingIO``.
package protocol StorageBackend: DocumentStore {
    /// Names the backend in messages (the data directory's path).
    var location: String { get }

    /// What one run attempt reads through: the same moment of every document (the data
    /// directory reads files as they are; PostgreSQL opens a REPEATABLE READ transaction).
    func readSnapshot() throws -> any DocumentStore

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
    /// died mid-run), oldest first: another daemon takes them over with ``claimSlot``.
    func expiredSlotClaims(job: String) async throws -> [Date]

    /// Finishes commits that a crash interrupted after their commit point, discards the others;
    /// returns the ids of the commits it finished.
    func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery

    /// Commits `commit` atomically unless a document it writes changed since it was read.
    func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult

    /// Commits document changes that are not a run's (the outbox's removal of dead device
    /// tokens), atomically unless a document it writes changed since it was read; `id` names
    /// the commit (the data directory's journal).
    func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult

    /// The outbox queue the backend's commits fill (docs/outbox-and-webhooks.md): a fresh
    /// value for each delivery pass (``OutboxClaimingQueue``), also what `hearth outbox list`
    /// and the status page read.
    var outbox: any OutboxClaimingQueue { get }

    /// Webhook endpoints disabled by a 410, by endpoint name (blocking; docs/outbox-and-webhooks.md).
    func disabledEndpoints() throws -> [String: DisabledEndpoint]

    /// Records that endpoint `name` is disabled, replacing an earlier entry (blocking).
    func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws

    /// Saves the record of a run that committed nothing (failed, cancelled, conflict).
    func saveRecord(_ record: RunRecord) async throws

    /// Queues one message outside a run's commit (a failed run's `job.failed` event).
    func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws

    /// Run records, newest first.
    func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord]

    /// Deletes a job's oldest records beyond `keep`.
    func pruneRunRecords(job: String, keep: Int) throws

    /// The scheduler's last handled slot of `job` (nil: never scheduled here).
    func schedulerState(job: String) -> SchedulerStateStore.Entry?

    /// Saves the scheduler's last handled slot of a job.
    func saveSchedulerState(_ entry: SchedulerStateStore.Entry) throws

    // Paused jobs (docs/operations/monitoring.md#pause-and-resume): written by `hearth pause` /
    // `hearth resume` and by the daemon (`pauseAfterFailures`); a running daemon reads them
    // about once a second, so `pauses()` must be cheap when nothing is paused.

    /// Every paused job, by name (empty: none).
    func pauses() throws -> [String: JobPause]

    /// Pauses `pause.job`, replacing an earlier pause of it (its note and time).
    func setPause(_ pause: JobPause) throws

    /// Resumes `job`; nothing happens when it is not paused.
    func clearPause(job: String) throws
}

extension StorageBackend {
    package func readSnapshot() throws -> any DocumentStore { self }
    package func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool { true }
    package func expiredSlotClaims(job: String) async throws -> [Date] { [] }
}

/// A held backend lock; released by `release()` or when the holder goes away.
package protocol StorageLock: Sendable {
    func release()
}

/// One real run's commit: its changeset (documents, outbox messages, ledger) and what Hearth
/// commits with it.
package struct RunCommit: Sendable {
    package var job: String
    package var runID: String
    package var changeset: Changeset
    /// The run record, committed with the documents.
    package var record: RunRecord
    /// Messages beyond the changeset's, e.g. `job.succeeded` (not part of the plan).
    package var events: [OutboxMessage]

    package init(job: String, runID: String, changeset: Changeset, record: RunRecord, events: [OutboxMessage] = []) {
        self.job = job
        self.runID = runID
        self.changeset = changeset
        self.record = record
        self.events = events
    }
}

/// What ``StorageBackend/commit(_:holder:timeout:)`` did.
package enum CommitResult: Sendable, Equatable {
    case committed
    /// These documents changed since the run read them; nothing was written.
    case conflict([DocumentPath])
}

/// What crash recovery did: commits finished and uncommitted journals discarded.
package struct CommitRecovery: Sendable, Equatable {
    package var finished: [String] = []
    package var discarded: [String] = []

    package init(finished: [String] = [], discarded: [String] = []) {
        self.finished = finished
        self.discarded = discarded
    }
}
