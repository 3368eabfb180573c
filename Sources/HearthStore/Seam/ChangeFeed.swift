/// The change feed (docs/triggers.md#the-change-feed): how the daemon learns, without polling,
/// that documents a triggered job reads were written, by any process.
package protocol ChangeFeed: Sendable {
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

extension ChangeFeed {
    /// No change feed: only the schedule starts runs.
    package func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>? { nil }
    /// One daemon per store: every batch is this daemon's.
    package func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64> { Set(sequences) }
}
