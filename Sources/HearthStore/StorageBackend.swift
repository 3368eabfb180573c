package import Foundation
package import HearthKit

/// Where Hearth keeps the apps' documents and its own state: the seam between the host and a
/// backend (the data directory, PostgreSQL, and HearthTesting's in-memory store;
/// docs/architecture.md#storage). Nothing outside a backend's own target looks at which one it
/// is: what differs is in ``features`` and in the optional ``transfer``.
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

    /// What this backend does beyond what every backend does (``StorageFeatures``).
    var features: StorageFeatures { get }

    /// Copying documents between this backend and a data directory (`hearth data import` and
    /// `export`); nil when the backend cannot (the data directory itself).
    var transfer: (any DocumentTransfer)? { get }

    /// Why the backend cannot serve a daemon now (`GET /readyz`), as the reason shown there;
    /// nil when it can (blocking).
    func healthProblem() -> String?

    /// What `hearth check` reports of the store itself beyond invalid documents: the
    /// `collections` that hold documents, how many, and (where documents are files) files Hearth
    /// ignores and documents in the `written` collections whose owner it could not keep (blocking).
    func inspect(collections: Set<String>, written: Set<String>) throws -> StoreInspection

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

    /// ``saveRecord(_:)`` from the caller's thread (blocking): the daemon records skipped slots
    /// of a store no other daemon shares this way, in order, before it goes on.
    func writeRecord(_ record: RunRecord) throws

    /// Queues one message outside a run's commit (a failed run's `job.failed` event).
    func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws

    /// Run records, the one that ended last first.
    func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord]

    /// The record with this run id, whatever its job (nil: none, or pruned); without reading
    /// the others (`GET /runs/{id}`).
    func runRecord(id: String) throws -> RunRecord?

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

    // The audit log (docs/operations/monitoring.md#the-audit-log): every pause, resume, run
    // now, backfill, dead-letter retry and data import, from the CLI or the HTTP endpoint.

    /// Appends one entry (blocking).
    func appendAudit(_ entry: AuditEntry) throws

    /// Entries newest first, only `job`'s when given, at most `limit` (blocking).
    func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry]

    // The change feed (docs/triggers.md#the-change-feed): how the daemon learns, without
    // polling, that documents a triggered job reads were written, by any process.

    /// The writes to documents of `collections` (top-level collection names), from any process,
    /// as they happen; nil when the backend has no change feed. Watching has started when it
    /// returns; it stops when the stream's consumer stops iterating (the task is cancelled).
    /// Errors setting it up are thrown; errors later become ``ChangeFeedEvent/lost(collections:reason:)``
    /// followed by watching again.
    func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>?

    /// Of the write batches `sequences` (``ChangeBatch/sequence``) that started a run of `job`,
    /// the ones this daemon (`holder`) takes: with several daemons on one store each batch is
    /// taken by exactly one of them, so one write starts one run. The others are dropped.
    func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64>
}

extension StorageBackend {
    package func readSnapshot() throws -> any DocumentStore { self }
    package func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool { true }
    package func expiredSlotClaims(job: String) async throws -> [Date] { [] }
    package var transfer: (any DocumentTransfer)? { nil }
    /// No change feed: only the schedule starts runs.
    package func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>? { nil }
    /// One daemon per store: every batch is this daemon's.
    package func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64> { Set(sequences) }

    /// Whether a run-history query succeeds.
    package func healthProblem() -> String? {
        do { _ = try runRecords(job: nil, status: nil, limit: 1) } catch {
            return "the data backend is unreachable (a query failed)"
        }
        return nil
    }

    /// The documents counted: a store without files has no stray files and no file owners.
    package func inspect(collections: Set<String>, written: Set<String>) throws -> StoreInspection {
        var inspection = StoreInspection()
        for c in collections.sorted() {
            let ids = try documentIDs(in: c)
            guard !ids.isEmpty else { continue }
            inspection.collections.append(c)
            inspection.documents += ids.count
        }
        return inspection
    }
}

/// What a backend does beyond what every backend does; the host asks for a feature, never for a
/// backend's type.
package struct StorageFeatures: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// A commit is written through a journal that a crash can leave behind, and
    /// ``StorageBackend/recoverInterruptedCommits(holder:timeout:)`` replays or discards it
    /// (`hearth recover`; the data directory). Without it a commit is one transaction and there
    /// is nothing to replay.
    package static let commitJournal = StorageFeatures(rawValue: 1 << 0)

    /// Several daemons may share the store: a slot is claimed
    /// (``StorageBackend/claimSlot(job:logicalTime:holder:lease:)``) before it is run or skipped,
    /// and only the claim's holder records it (PostgreSQL; docs/storage/postgres.md#several-daemons).
    package static let sharedByDaemons = StorageFeatures(rawValue: 1 << 1)
}

/// Moves documents between a backend and a data directory (docs/storage/postgres.md#moving-data).
/// Blocking: callers on the cooperative pool run it through ``BlockingIO``.
package protocol DocumentTransfer: Sendable {
    /// Copies every document of the data directory `directory` into the store in one
    /// transaction; a store that holds documents is refused unless `replace`. Returns how many.
    func importDirectory(_ directory: String, replace: Bool, progress: ((Int) -> Void)?) throws -> Int

    /// Writes every document into `directory` (new or empty) as a data directory. Returns how many.
    func exportDocuments(to directory: String, progress: ((Int) -> Void)?) throws -> Int
}

/// What ``StorageBackend/inspect(collections:written:)`` found.
package struct StoreInspection: Sendable {
    /// The collections holding documents (or, in a data directory, a folder), sorted.
    package var collections: [String] = []
    package var documents = 0
    /// Files in the collections Hearth ignores (`users/notes.txt`).
    package var ignored: [String] = []
    /// Documents whose owner or group this process could not keep when rewriting them.
    package var unkeepable: [(file: String, owner: String)] = []

    package init() {}
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
    /// The `createdAt` of the changeset's messages: the start time the job saw (`--now`), which
    /// the record's wall-clock `start` may not be.
    package var messagesCreatedAt: Date
    /// How many writes in a row led to this commit (docs/triggers.md#chains): 0 for a run the
    /// schedule, the CLI or HTTP started; 1 for a run an app's write started; n + 1 for a run
    /// a commit with chain n started. The change feed reports it with the commit's writes
    /// (``ChangeBatch/chain``).
    package var chain: Int

    package init(job: String, runID: String, changeset: Changeset, record: RunRecord, events: [OutboxMessage] = [], messagesCreatedAt: Date? = nil, chain: Int = 0) {
        self.chain = chain
        self.job = job
        self.runID = runID
        self.changeset = changeset
        self.record = record
        self.events = events
        self.messagesCreatedAt = messagesCreatedAt ?? record.start
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
