package import Foundation

/// The outbox as `hearth outbox …`, the status page and the daemon see it, whatever holds it
/// (docs/outbox-and-webhooks.md#postgresql): pending and dead messages, putting a dead letter
/// back, when the next message is due. ``DirectoryOutbox`` and `PostgresOutbox` implement it.
package protocol OutboxQueue: Sendable {
    // Blocking calls: callers on the cooperative pool run them through `BlockingIO`.

    /// The messages in `folder`, oldest first.
    func messages(in folder: OutboxStore.Folder) throws -> [OutboxEnvelope]

    /// Moves dead letter `id` back to pending, due at `now`, attempts reset. False when no dead
    /// letter has that id.
    func retry(id: String, now: Date) throws -> Bool

    /// The earliest time a pending message is due; nil when nothing is pending.
    func nextDueDate() throws -> Date?
}

/// An outbox several deliverers take batches from (PostgreSQL's `PostgresOutbox`, which claims
/// rows with `FOR UPDATE SKIP LOCKED`). The data directory's outbox keeps its file-by-file
/// claims (``OutboxClaim``) inside `OutboxDeliverer.deliverDue(now:)`, unchanged. Either way
/// the retry, backoff and dead-letter rules live in one place, the deliverer's `advance`.
package protocol OutboxClaimingQueue: OutboxQueue {
    /// Claims up to `limit` pending messages due at `now`, oldest first. Another deliverer
    /// never receives a message while this claim holds; the claim ends with
    /// ``OutboxQueueBatch/finish(_:)`` (or with the process: at least once).
    func claimDue(limit: Int, now: Date) async throws -> any OutboxQueueBatch
}

/// Messages claimed by one deliverer.
package protocol OutboxQueueBatch: Sendable {
    var messages: [OutboxEnvelope] { get }

    /// Records every claimed message's outcome and ends the claim (one transaction).
    func finish(_ outcomes: [OutboxOutcome]) async throws
}

/// How one delivery attempt left a message.
package enum OutboxOutcome: Sendable {
    /// Every target done: the message leaves the queue.
    case delivered(id: String)
    /// Still pending, with its updated state (attempts, targets, `nextAttemptAt`).
    case retry(OutboxEnvelope)
    /// Into dead letters (or dropped), with its final state.
    case finished(OutboxEnvelope, OutboxStore.Folder)
    /// Not attempted (not due yet): left as it was.
    case untouched(id: String)
}
