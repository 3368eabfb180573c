package import Foundation
package import HearthStore
import HearthKit
import Synchronization

/// The outbox of an ``InMemoryStore`` (``InMemoryStore/outbox``), a queue deliverers take
/// batches from as they do from PostgreSQL's: a claimed message is given to no other deliverer
/// until its batch is finished. Messages are kept in the order they were queued.
package final class InMemoryOutbox: OutboxClaimingQueue {
    let store: InMemoryStore
    /// The messages this pass claimed already: a pass claims each message once.
    private let claimed = Mutex(Set<String>())

    init(store: InMemoryStore) {
        self.store = store
    }

    /// The messages, in the store's state.
    struct Queue: Sendable {
        struct Entry: Sendable {
            var envelope: OutboxEnvelope
            var folder: OutboxFolder
            var claimed = false
        }

        var entries: [Entry] = []

        /// Queues a new message; a message id already queued is left as it is (ids are stable).
        mutating func add(_ envelope: JSONObject) {
            let e = OutboxEnvelope(object: envelope)
            guard !entries.contains(where: { $0.envelope.id == e.id }) else { return }
            entries.append(Entry(envelope: e, folder: .pending))
        }

        func due(_ e: Entry) -> Date { e.envelope.nextAttemptAt ?? e.envelope.createdAt ?? .distantPast }
    }

    package var droppedLocation: String { "the in-memory store's dropped messages" }

    package func claimDue(limit: Int, now: Date) async throws -> any OutboxQueueBatch {
        let seen = claimed.withLock { $0 }
        let messages = store.state.withLock { s -> [OutboxEnvelope] in
            var taken: [OutboxEnvelope] = []
            for i in s.outbox.entries.indices where taken.count < max(1, limit) {
                let e = s.outbox.entries[i]
                guard e.folder == .pending, !e.claimed, !seen.contains(e.envelope.id), s.outbox.due(e) <= now else { continue }
                s.outbox.entries[i].claimed = true
                taken.append(e.envelope)
            }
            return taken
        }
        claimed.withLock { $0.formUnion(messages.map(\.id)) }
        return InMemoryOutboxBatch(store: store, messages: messages)
    }

    package func messages(in folder: OutboxFolder) throws -> [OutboxEnvelope] {
        store.state.withLock { s in s.outbox.entries.filter { $0.folder == folder }.map(\.envelope) }
    }

    package func retry(id: String, now: Date) throws -> Bool {
        store.state.withLock { s in
            guard let i = s.outbox.entries.firstIndex(where: { $0.envelope.id == id && $0.folder == .dead }) else { return false }
            s.outbox.entries[i].envelope.resetForRetry(now: now)
            s.outbox.entries[i].folder = .pending
            return true
        }
    }

    package func nextDueDate() throws -> Date? {
        store.state.withLock { s in s.outbox.entries.filter { $0.folder == .pending }.map { s.outbox.due($0) }.min() }
    }
}
