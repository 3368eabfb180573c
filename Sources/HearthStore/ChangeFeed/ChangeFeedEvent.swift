/// What a change feed delivers (``ChangeFeed/changeFeed(collections:)``).
package enum ChangeFeedEvent: Sendable, Equatable {
    /// Documents were written.
    case changed(ChangeBatch)
    /// Writes to `collections` may have been missed — the inotify queue overflowed, the
    /// notification connection dropped and was made again, a collection folder was re-created —
    /// so the jobs they trigger must read everything once. `reason` is for the log.
    case lost(collections: Set<String>, reason: String)
}
