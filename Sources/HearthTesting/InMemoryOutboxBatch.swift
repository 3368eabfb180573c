import HearthStore
import Synchronization

/// Messages of an ``InMemoryOutbox`` claimed by one deliverer; ``finish(_:)`` records their
/// outcomes and ends the claim in one step.
struct InMemoryOutboxBatch: OutboxQueueBatch {
    let store: InMemoryStore
    let messages: [OutboxEnvelope]

    func finish(_ outcomes: [OutboxOutcome]) async throws {
        let ids = Set(messages.map(\.id))
        store.state.withLock { s in
            for outcome in outcomes {
                switch outcome {
                case .delivered(let id):
                    s.outbox.entries.removeAll { $0.envelope.id == id }
                case .untouched:
                    break
                case .retry(let envelope):
                    Self.update(&s.outbox, envelope, .pending)
                case .finished(let envelope, let folder):
                    Self.update(&s.outbox, envelope, folder)
                }
            }
            for i in s.outbox.entries.indices where ids.contains(s.outbox.entries[i].envelope.id) { s.outbox.entries[i].claimed = false }
            // Dropped messages are kept for inspection, the newest `droppedRetention` only.
            let dropped = s.outbox.entries.indices.filter { s.outbox.entries[$0].folder == .dropped }
            for i in dropped.dropLast(OutboxFolder.droppedRetention).reversed() { s.outbox.entries.remove(at: i) }
        }
    }

    static func update(_ queue: inout InMemoryOutbox.Queue, _ envelope: OutboxEnvelope, _ folder: OutboxFolder) {
        guard let i = queue.entries.firstIndex(where: { $0.envelope.id == envelope.id }) else { return }
        queue.entries[i].envelope = envelope
        queue.entries[i].folder = folder
    }
}
