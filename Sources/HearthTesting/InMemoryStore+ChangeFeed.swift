import HearthKit
package import HearthStore
import Synchronization

/// The in-memory store's change feed (``ChangeFeed/changeFeed(collections:)``): each write
/// is announced, as it happens and in order, to every open feed that watches its top-level
/// collection, one ``ChangeBatch`` per collection a write touches. A ``write(_:_:)`` or
/// ``remove(_:)`` is an app's write (no writer, chain 0); a commit is its job's, with the run's
/// chain. Every batch has a ``ChangeBatch/sequence``, and ``claimChanges(job:sequences:holder:)``
/// gives each batch of a job to the first daemon that asks, as on PostgreSQL: several daemons on
/// one store start one run per write.
extension InMemoryStore {
    /// One open feed.
    struct OpenFeed: Sendable {
        var collections: Set<String>
        var continuation: AsyncStream<ChangeFeedEvent>.Continuation
    }

    /// What ``changeFeed(collections:)`` does: for tests of a daemon on a store without a change
    /// feed, or whose watch cannot be set up.
    package enum ChangeFeedSupport: Sendable {
        case available
        /// Returns nil, as a backend without a change feed does.
        case none
        /// Throws an error with this message.
        case failing(String)
    }

    /// A store's change feed refused to start (``ChangeFeedSupport/failing(_:)``).
    package struct ChangeFeedFailure: Error, CustomStringConvertible {
        package var description: String
    }

    package var changeFeedSupport: ChangeFeedSupport {
        get { state.withLock { $0.changeFeedSupport } }
        set { state.withLock { $0.changeFeedSupport = newValue } }
    }

    package func changeFeed(collections: Set<String>) throws -> AsyncStream<ChangeFeedEvent>? {
        switch changeFeedSupport {
        case .available: break
        case .none: return nil
        case .failing(let message): throw ChangeFeedFailure(description: message)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeFeedEvent.self, bufferingPolicy: .unbounded)
        let id = state.withLock { s in
            s.nextFeed += 1
            s.feeds[s.nextFeed] = OpenFeed(collections: collections, continuation: continuation)
            return s.nextFeed
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.feeds.removeValue(forKey: id) }
        }
        return stream
    }

    package func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64> {
        state.withLock { s in
            var taken = Set<Int64>()
            for sequence in sequences {
                if let other = s.claimedChanges[job]?[sequence] {
                    if other == holder { taken.insert(sequence) }
                    continue
                }
                s.claimedChanges[job, default: [:]][sequence] = holder
                taken.insert(sequence)
            }
            return taken
        }
    }

    /// How many change feeds are open (a feed closes when its reader stops).
    package var openChangeFeeds: Int {
        state.withLock { $0.feeds.count }
    }

    /// Tells every open feed that watches one of `collections` that writes to them may have
    /// been missed (what an inotify overflow or a dropped notification connection does).
    package func announceLost(_ collections: Set<String>, reason: String) {
        state.withLock { s in
            for feed in s.feeds.values {
                let watched = collections.intersection(feed.collections)
                if !watched.isEmpty { feed.continuation.yield(.lost(collections: watched, reason: reason)) }
            }
        }
    }

    /// Delivers `batch` to every open feed that watches its collection, as if the store had seen
    /// it: for batches its own writes do not make (no paths, a long chain). A nil sequence gets
    /// the next number.
    package func announce(_ batch: ChangeBatch) {
        state.withLock { s in
            var batch = batch
            if batch.sequence == nil {
                s.sequence += 1
                batch.sequence = s.sequence
            }
            for feed in s.feeds.values where feed.collections.contains(batch.collection) { feed.continuation.yield(.changed(batch)) }
        }
    }
}

extension InMemoryStore.State {
    /// Announces that `paths` were written (under the store's lock, so feeds see writes in the
    /// order they happened).
    mutating func announce(_ paths: [DocumentPath], writer: String?, chain: Int) {
        guard !feeds.isEmpty, !paths.isEmpty else { return }
        var byCollection: [String: [DocumentPath]] = [:]
        for p in paths { byCollection[p.components[0], default: []].append(p) }
        for (collection, written) in byCollection.sorted(by: { $0.key < $1.key }) {
            let targets = feeds.values.filter { $0.collections.contains(collection) }
            guard !targets.isEmpty else { continue }
            sequence += 1
            let batch = ChangeBatch(collection: collection, paths: written.sorted(), writer: writer, chain: chain, sequence: sequence)
            for feed in targets { feed.continuation.yield(.changed(batch)) }
        }
    }
}
