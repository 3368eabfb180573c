package import Foundation
package import HearthKit
package import HearthStore

extension CommitLock: StorageLock {}

/// The data directory as a ``StorageBackend``: documents are files, a commit is a journal
/// (docs/reliability.md#commits-locking-crashes), run records, scheduler state and the outbox
/// live under `.hearth/`.
extension DataDirectory: StorageBackend {
    package var location: String { root }

    package var features: StorageFeatures { .commitJournal }

    /// Whether the data directory and its state directory can be listed and written.
    package func healthProblem() -> String? {
        guard access(root, R_OK | W_OK | X_OK) == 0 else { return "the data backend is unreachable (data directory not accessible)" }
        var st = stat()
        if stat(stateDirectory, &st) == 0, access(stateDirectory, R_OK | W_OK | X_OK) != 0 {
            return "the data backend is unreachable (state directory not writable)"
        }
        return nil
    }

    /// The collections' documents counted, files Hearth ignores, and documents in written
    /// collections whose owner this process could not keep.
    package func inspect(collections: Set<String>, written: Set<String>) throws -> StoreInspection {
        var inspection = StoreInspection()
        for c in collections.sorted() {
            let listing = try listCollection(c)
            if FileIO.realPath(collectionDirectory(c)) == nil && listing.ids.isEmpty { continue }
            inspection.collections.append(c)
            inspection.documents += listing.ids.count
            inspection.ignored += listing.ignored.map { "\(c)/\($0)" }
        }
        for c in written.sorted() {
            let files = try documentIDs(in: c).map { root + "/" + c + "/" + $0 + ".json" }
            for u in FileOwnership.unkeepable(files, probeDirectory: stateDirectory) {
                inspection.unkeepable.append((String(u.path.dropFirst(root.count + 1)), u.owner))
            }
        }
        return inspection
    }

    package func lockJob(_ job: String, holder: String, timeout: Duration) async throws -> any StorageLock {
        let path = stateDirectory + "/jobs/\(job).lock"
        return try await BlockingIO.run { () throws(any Error) in
            try CommitLock.acquire(path: path, root: root, holder: holder, timeout: timeout, what: "job \(job)")
        }
    }

    package func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery {
        let committer = Committer(data: self)
        return try await BlockingIO.run { () throws(any Error) in
            let lock = try committer.lock(holder: holder, timeout: timeout)
            defer { lock.release() }
            let r = try committer.recover()
            return CommitRecovery(finished: r.redone, discarded: r.discarded)
        }
    }

    package func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult {
        let c = commit.changeset
        return try await locked(c, holder: holder, timeout: timeout) { committer throws(any Error) in
            try checkOwnership(c)
            let ledger = Ledger.operations(records: c.ledgerRecords, deletes: c.ledgerDeletes, job: commit.job, runID: commit.runID)
            let outbox = DirectoryOutboxFolders.batchWrites(c.messages, job: commit.job, runID: commit.runID, createdAt: commit.messagesCreatedAt)
            let events = commit.events.map { event in
                Committer.Write.put(
                    DirectoryOutboxFolders.relativePath(pending: event.id),
                    JSONWriter.document(OutboxEnvelope.queued(event, job: commit.job, runID: commit.runID, createdAt: commit.record.end)))
            }
            let record = Committer.Write.put(commit.record.relativePath, JSONWriter.document(commit.record.json))
            try committer.commit(c, id: "\(commit.job)-\(commit.runID)", leading: ledger, extra: outbox + events + [record], writer: WriterMark(job: commit.job, chain: commit.chain))
        }
    }

    /// The writes to `collections` by any process, from inotify (``DirectoryChangeFeed``); a
    /// job's commit is told apart by the ``WriterMark`` on the files it wrote.
    package func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>? {
        try DirectoryChangeFeed.start(data: self, collections: collections).events
    }

    /// A follow-up commit (the outbox's removal of dead device tokens): as a run's commit, one
    /// journal named `id`, documents only.
    package func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult {
        try await locked(changeset, holder: holder, timeout: timeout) { committer throws(any Error) in
            try committer.commit(changeset, id: id)
        }
    }

    /// How both commits go, the one place that decides it: the writers' lock, any commit a
    /// crash interrupted finished first (a run's runner has usually done it before the run
    /// read, and then there is nothing left), the version check of `changeset`, then `write`.
    private func locked(
        _ changeset: Changeset, holder: String, timeout: Duration, _ write: @escaping @Sendable (Committer) throws(any Error) -> Void
    ) async throws -> CommitResult {
        let committer = Committer(data: self)
        return try await BlockingIO.run { () throws(any Error) in
            let lock = try committer.lock(holder: holder, timeout: timeout)
            defer { lock.release() }
            try committer.recover()
            let conflicts = try committer.conflicts(in: changeset)
            if !conflicts.isEmpty { return .conflict(conflicts) }
            try write(committer)
            return .committed
        }
    }

    /// Throws ``OwnershipError`` when the changeset rewrites documents whose owner or group
    /// this process cannot keep; checked before the commit, so nothing is written.
    func checkOwnership(_ changeset: Changeset) throws(OwnershipError) {
        let rewritten = changeset.entries.filter { $0.action == .update }.map { filePath($0.path) }
        let unkeepable = FileOwnership.unkeepable(rewritten, probeDirectory: stateDirectory)
        guard let first = unkeepable.first else { return }
        let me = FileOwnership.process
        throw OwnershipError(
            files: unkeepable.map { (String($0.path.dropFirst(root.count + 1)), $0.owner) },
            runningAs: me.described, runningUser: ProcessIdentity.userName(me.euid) ?? String(me.euid),
            suggestedUser: first.uid == 0 ? nil : ProcessIdentity.userName(first.uid) ?? String(first.uid))
    }

    package func saveRecord(_ record: RunRecord) async throws {
        let data = self
        try await BlockingIO.run { () throws(any Error) in try RunHistory(data: data, limit: .max).write(record) }
    }

    package func writeRecord(_ record: RunRecord) throws {
        try RunHistory(data: self, limit: .max).write(record)
    }

    package func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws {
        let data = self
        try await BlockingIO.run { () throws(FileIO.Failure) in
            try DirectoryOutboxFolders.enqueue(message, job: job, runID: runID, createdAt: createdAt, data: data)
        }
    }

    package func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord] {
        try RunHistory(data: self, limit: .max).list(job: job, status: status, limit: limit)
    }

    package func runRecord(id: String) throws -> RunRecord? {
        try RunHistory(data: self, limit: .max).record(id: id)
    }

    package func pruneRunRecords(job: String, keep: Int) throws {
        try RunHistory(data: self, limit: keep).prune(job: job)
    }

    package func schedulerState(job: String) -> SchedulerState? {
        DirectorySchedulerState(data: self).load(job: job)
    }

    package func saveSchedulerState(_ entry: SchedulerState) throws {
        try DirectorySchedulerState(data: self).save(entry)
    }

    package func pauses() throws -> [String: JobPause] {
        try DirectoryPauses(data: self).load()
    }

    package func setPause(_ pause: JobPause) throws {
        try DirectoryPauses(data: self).save(pause)
    }

    package func clearPause(job: String) throws {
        try DirectoryPauses(data: self).remove(job: job)
    }

    package func appendAudit(_ entry: AuditEntry) throws {
        try AuditLogFile(data: self).append(entry)
    }

    package func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry] {
        try AuditLogFile(data: self).entries(job: job, limit: limit)
    }
}
