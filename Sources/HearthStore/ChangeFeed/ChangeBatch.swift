package import HearthKit

/// Documents of one collection that a change feed saw written together
/// (docs/triggers.md#the-change-feed): the events of one inotify read, the rows of one
/// PostgreSQL statement.
package struct ChangeBatch: Sendable, Equatable {
    /// The top-level collection (`transactions`; a write to `users/u1/badges/b` counts for `users`).
    package var collection: String
    /// The documents written (created, replaced, updated or deleted); nil when the feed could not
    /// name them all (a statement that wrote too many rows to list): a run must read everything.
    package var paths: [DocumentPath]?
    /// The job whose commit wrote them; nil for any other writer (an app, a script, `hearth data
    /// import`, the outbox removing a dead device token).
    package var writer: String?
    /// The committing run's ``RunCommit/chain`` (0 when not a job's commit).
    package var chain: Int
    /// Names the batch across daemons sharing the store (PostgreSQL: one number per statement,
    /// from a sequence), for ``ChangeFeed/claimChanges(job:sequences:holder:)``; nil on a
    /// store only one daemon watches.
    package var sequence: Int64?

    package init(collection: String, paths: [DocumentPath]?, writer: String? = nil, chain: Int = 0, sequence: Int64? = nil) {
        self.collection = collection
        self.paths = paths
        self.writer = writer
        self.chain = chain
        self.sequence = sequence
    }
}
