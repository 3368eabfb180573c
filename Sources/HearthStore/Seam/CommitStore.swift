package import HearthKit

/// Commits: for real runs, a run's changeset together with its outbox messages, ledger entries
/// and run record, atomically, after checking that no document it writes changed since the run
/// read it; and finishing commits a crash interrupted.
package protocol CommitStore: DocumentStore {
    /// What one run attempt reads through: the same moment of every document (the data
    /// directory reads files as they are; PostgreSQL opens a REPEATABLE READ transaction).
    func readSnapshot() throws -> any DocumentStore

    /// Finishes commits that a crash interrupted after their commit point, discards the others;
    /// returns the ids of the commits it finished.
    func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery

    /// Commits `commit` atomically unless a document it writes changed since it was read.
    func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult

    /// Commits document changes that are not a run's (the outbox's removal of dead device
    /// tokens), atomically unless a document it writes changed since it was read; `id` names
    /// the commit (the data directory's journal).
    func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult
}

extension CommitStore {
    package func readSnapshot() throws -> any DocumentStore { self }
}
