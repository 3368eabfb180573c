package import Foundation
package import HearthKit
package import HearthStore
import Synchronization

/// The in-memory store as a backend: a commit is one step under the store's lock (atomic, with
/// the version check every backend makes), so there is never anything to recover. Several
/// daemons of one test process may share it: slots are claimed as on PostgreSQL
/// (``StorageFeatures/sharedByDaemons``).
extension InMemoryStore: StorageBackend {
    package var location: String { "memory" }

    package var features: StorageFeatures { .sharedByDaemons }

    package func healthProblem() -> String? { nil }

    package func lockJob(_ job: String, holder: String, timeout: Duration) async throws -> any StorageLock {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            let current = state.withLock { s -> String? in
                if let other = s.locks[job] { return other }
                s.locks[job] = holder
                return nil
            }
            guard let current else { return InMemoryLock(store: self, job: job, holder: holder) }
            let waited = clock.now - start
            guard waited < timeout else { throw LockBusyError(what: "job \(job)", lockFile: "memory", holder: current, waited: waited) }
            // Another task of this process holds it: it is released by a call, not a signal.
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    package func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool {
        let now = Date()
        let until = now.addingTimeInterval(Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18)
        return state.withLock { s in
            if let c = s.claims[job]?[logicalTime], c.holder != holder, c.done || c.leaseUntil >= now { return false }
            let done = s.claims[job]?[logicalTime]?.done ?? false
            s.claims[job, default: [:]][logicalTime] = Claim(holder: holder, leaseUntil: until, done: done)
            return true
        }
    }

    package func expiredSlotClaims(job: String) async throws -> [Date] {
        let now = Date()
        return state.withLock { s in (s.claims[job] ?? [:]).filter { !$0.value.done && $0.value.leaseUntil < now }.map(\.key).sorted() }
    }

    package func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery { CommitRecovery() }

    package func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult {
        state.withLock { s in
            let conflicts = Self.conflicts(commit.changeset, s)
            if !conflicts.isEmpty { return .conflict(conflicts) }
            let c = commit.changeset
            for op in Ledger.operations(records: c.ledgerRecords, deletes: c.ledgerDeletes, job: commit.job, runID: commit.runID) {
                switch op {
                case .put(let name, let bytes): s.ledger[name] = bytes
                case .delete(let name): s.ledger[name] = nil
                }
            }
            Self.apply(c, to: &s)
            s.announce(c.entries.map(\.path), writer: commit.job, chain: commit.chain)
            for m in c.messages { s.outbox.add(OutboxEnvelope.queued(m, job: commit.job, runID: commit.runID, createdAt: commit.messagesCreatedAt)) }
            for m in commit.events { s.outbox.add(OutboxEnvelope.queued(m, job: commit.job, runID: commit.runID, createdAt: commit.record.end)) }
            Self.save(commit.record, in: &s)
            return .committed
        }
    }

    package func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult {
        state.withLock { s in
            let conflicts = Self.conflicts(changeset, s)
            if !conflicts.isEmpty { return .conflict(conflicts) }
            Self.apply(changeset, to: &s)
            s.announce(changeset.entries.map(\.path), writer: nil, chain: 0)
            return .committed
        }
    }

    /// The documents `changeset` writes that changed since they were read.
    static func conflicts(_ changeset: Changeset, _ s: State) -> [DocumentPath] {
        changeset.versionChecks.filter { c in c.expected != s.documents[c.path.collection]?[c.path.id]?.version }.map(\.path)
    }

    static func apply(_ changeset: Changeset, to s: inout State) {
        for e in changeset.entries {
            switch e.action {
            case .create, .update: s.put(e.path, e.content ?? JSONWriter.document(JSONObject()))
            case .delete: s.remove(e.path)
            }
        }
    }

    /// Saves a record; a daemon's record ends its slot's claim, as on PostgreSQL.
    static func save(_ record: RunRecord, in s: inout State) {
        if record.trigger != .cli, !record.dryRun, s.claims[record.job]?[record.logicalTime] != nil {
            s.claims[record.job]?[record.logicalTime]?.done = true
        }
        s.records[record.job, default: [:]][record.runID] = record
    }

    package func saveRecord(_ record: RunRecord) async throws {
        try writeRecord(record)
    }

    package func writeRecord(_ record: RunRecord) throws {
        state.withLock { Self.save(record, in: &$0) }
    }

    package func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws {
        state.withLock { $0.outbox.add(OutboxEnvelope.queued(message, job: job, runID: runID, createdAt: createdAt)) }
    }

    package func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord] {
        var out = state.withLock { s in job.map { Array((s.records[$0] ?? [:]).values) } ?? s.records.values.flatMap(\.values) }
        if let status { out = out.filter { $0.status == status } }
        out.sort { ($0.end, $0.runID) > ($1.end, $1.runID) }
        return limit.map { Array(out.prefix($0)) } ?? out
    }

    package func runRecord(id: String) throws -> RunRecord? {
        state.withLock { s in s.records.values.lazy.compactMap { $0[id] }.first }
    }

    package func pruneRunRecords(job: String, keep: Int) throws {
        state.withLock { s in
            guard let records = s.records[job], records.count > keep else { return }
            for id in records.keys.sorted().dropLast(keep) { s.records[job]?[id] = nil }
        }
    }

    package func schedulerState(job: String) -> SchedulerState? {
        state.withLock { $0.scheduler[job] }
    }

    package func saveSchedulerState(_ entry: SchedulerState) throws {
        state.withLock { $0.scheduler[entry.job] = entry }
    }

    package func pauses() throws -> [String: JobPause] {
        state.withLock { $0.pauses }
    }

    package func setPause(_ pause: JobPause) throws {
        state.withLock { $0.pauses[pause.job] = pause }
    }

    package func clearPause(job: String) throws {
        state.withLock { $0.pauses[job] = nil }
    }

    package func disabledEndpoints() throws -> [String: DisabledEndpoint] {
        state.withLock { $0.disabledEndpoints }
    }

    package func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws {
        state.withLock { $0.disabledEndpoints[name] = entry }
    }

    /// The store's outbox queue, a fresh value for each delivery pass.
    package var outbox: any OutboxClaimingQueue { InMemoryOutbox(store: self) }

    package func appendAudit(_ entry: AuditEntry) throws {
        state.withLock { $0.audit.append(entry) }
    }

    package func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry] {
        let entries = state.withLock { s in s.audit.reversed().filter { job == nil || $0.job == job } }
        return limit.map { Array(entries.prefix($0)) } ?? entries
    }
}
