import Synchronization

/// Indexes of a data directory's documents by a field's value (messages by `conversationId`),
/// kept in memory by the process that watches the collection
/// (docs/triggers.md#work-in-proportion-to-the-change).
///
/// The change feed (``DataDirectory/changeFeed(collections:)``) tells the indexes what it saw:
/// which collections it watches, the documents written, and writes it may have missed. An index
/// is only used while its collection is watched and nothing was missed since it was built.
///
/// TODO(issue 31, field index): the indexes themselves; today nothing is indexed and searches
/// fall back to reading the collection.
package final class DirectoryFieldIndexes: Sendable {
    private struct State {
        var watched: Set<String> = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the change feed watches `collection` (true from the moment its watch exists).
    package func watching(_ collection: String, _ on: Bool) {
        state.withLock { s in
            if on { s.watched.insert(collection) } else { s.watched.remove(collection) }
        }
    }

    /// The documents `ids` of `collection` (top-level) were written (created, changed or deleted).
    package func written(_ collection: String, ids: [String]) {}

    /// Writes to `collection` may have been missed (overflow, folder re-created).
    package func lost(_ collection: String) {}
}
