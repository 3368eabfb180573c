/// What a backend does beyond what every backend does; the host asks for a feature, never for a
/// backend's type.
package struct StorageFeatures: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// A commit is written through a journal that a crash can leave behind, and
    /// ``CommitStore/recoverInterruptedCommits(holder:timeout:)`` replays or discards it
    /// (`hearth recover`; the data directory). Without it a commit is one transaction and there
    /// is nothing to replay.
    package static let commitJournal = StorageFeatures(rawValue: 1 << 0)

    /// Several daemons may share the store: a slot is claimed
    /// (``RunClaims/claimSlot(job:logicalTime:holder:lease:)``) before it is run or skipped,
    /// and only the claim's holder records it (PostgreSQL; docs/storage/postgres.md#several-daemons).
    package static let sharedByDaemons = StorageFeatures(rawValue: 1 << 1)
}
