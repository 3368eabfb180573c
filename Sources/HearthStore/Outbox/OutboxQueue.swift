package import Foundation
package import HearthKit

/// The outbox as `hearth outbox …`, the status page and the daemon see it, whatever holds it
/// (docs/outbox-and-webhooks.md#postgresql): pending and dead messages, putting a dead letter
/// back, when the next message is due. Every backend gives its own
/// (``OutboxStore/outbox``): `DirectoryOutbox`, `PostgresOutbox`.
package protocol OutboxQueue: Sendable {
    // Blocking calls: callers on the cooperative pool run them through `BlockingIO`.

    /// The messages in `folder`, oldest first.
    func messages(in folder: OutboxFolder) throws -> [OutboxEnvelope]

    /// Moves dead letter `id` back to pending, due at `now`, attempts reset. False when no dead
    /// letter has that id.
    func retry(id: String, now: Date) throws -> Bool

    /// The earliest time a pending message is due; nil when nothing is pending.
    func nextDueDate() throws -> Date?

    /// Whether any message is pending (due or not). A queue may answer faster than
    /// ``nextDueDate()``; by default it is `nextDueDate() != nil`.
    func hasPending() throws -> Bool

    /// Where this queue keeps the dropped messages it retains, for `hearth outbox list` to
    /// point at (a folder of the data directory, a table's rows).
    var droppedLocation: String { get }
}

extension OutboxQueue {
    package func hasPending() throws -> Bool { try nextDueDate() != nil }
}

/// An outbox deliverers take batches from: `OutboxDeliverer` claims due messages, attempts
/// each once, and hands the outcomes back, until a claim comes back empty. PostgreSQL's
/// `PostgresOutbox` claims rows with `FOR UPDATE SKIP LOCKED`; the data directory's
/// `DirectoryOutbox` claims files with `flock` (`OutboxClaim`). The retry, backoff and
/// dead-letter rules live in one place, the deliverer.
///
/// A queue value serves one delivery pass: take a fresh one from ``OutboxStore/outbox``
/// for each pass (a data directory's queue walks the listing it made at its first claim).
package protocol OutboxClaimingQueue: OutboxQueue {
    /// Claims up to `limit` pending messages due at `now`, oldest first. Another deliverer
    /// never receives a message while this claim holds; the claim ends with
    /// ``OutboxQueueBatch/finish(_:)`` (or with the process: at least once). An empty batch:
    /// nothing left to claim in this pass.
    func claimDue(limit: Int, now: Date) async throws -> any OutboxQueueBatch

    /// Drops, in one step, every pending message due at `now` that has nobody to go to under
    /// `rule` (never attempted; see ``OutboxDropRule``), as the deliverer would have dropped
    /// it one by one; returns how many of each kind. Nil: this queue leaves them to the claims
    /// (the default).
    func dropUndeliverable(_ rule: OutboxDropRule, now: Date, finishedAt: Date) async throws -> [OutboxMessage.Kind: Int]?

    /// Seconds within which a daemon looks at the queue again even when nothing is due: set
    /// when processes the daemon does not hear of add to it (PostgreSQL's, shared by every
    /// machine); nil (the default) when the daemon's own runs and the CLI on the same data
    /// are all that fill it.
    var pollInterval: TimeInterval? { get }

    /// How many messages a deliverer claims at once (100 by default). A claim's outcomes are
    /// recorded together, once its last message is attempted; a bigger claim costs fewer
    /// round trips, a smaller one holds fewer claims (PostgreSQL: row locks in one open
    /// transaction) and sends fewer messages again after a crash.
    var claimSize: Int { get }
}

extension OutboxClaimingQueue {
    package func dropUndeliverable(_ rule: OutboxDropRule, now: Date, finishedAt: Date) async throws -> [OutboxMessage.Kind: Int]? { nil }
    package var pollInterval: TimeInterval? { nil }
    package var claimSize: Int { 100 }
}

/// Messages claimed by one deliverer.
package protocol OutboxQueueBatch: Sendable {
    var messages: [OutboxEnvelope] { get }

    /// What the claim passed over (not due, held by another deliverer, unreadable). Empty by
    /// default: a queue that claims only due messages and hides the others.
    var skipped: OutboxClaimSkips { get }

    /// Records every claimed message's outcome and ends the claim (one transaction where the
    /// queue has them). Throws ``OutboxFinishFailure`` when only some outcomes could not be
    /// recorded.
    func finish(_ outcomes: [OutboxOutcome]) async throws
}

extension OutboxQueueBatch {
    package var skipped: OutboxClaimSkips { OutboxClaimSkips() }
}

/// The pending messages a claim passed over, for the pass's report.
package struct OutboxClaimSkips: Sendable, Equatable {
    /// Not due yet, and the earliest of their due dates.
    package var notDue = 0
    package var earliestNotDue: Date?
    /// Held by another deliverer at the moment.
    package var busy = 0
    /// Seconds after which a message another deliverer held is looked at again.
    package static let busyRecheck: TimeInterval = 30
    /// Failures reading the queue (an unreadable file), for the report.
    package var errors: [String] = []

    package init() {}

    package var isEmpty: Bool { notDue == 0 && busy == 0 && errors.isEmpty }
}

/// Some outcomes of a batch could not be recorded (the others were): the messages named stay
/// pending as they were and are attempted again (at least once).
package struct OutboxFinishFailure: Error, Sendable, CustomStringConvertible {
    /// The ids whose outcome was not recorded, with why.
    package var failed: [String: String]

    package init(failed: [String: String]) {
        self.failed = failed
    }

    package var description: String {
        failed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
    }
}

/// Which never-attempted messages have nobody to go to (``OutboxClaimingQueue/dropUndeliverable(_:now:finishedAt:)``),
/// decided by the deliverer from its configuration; each dropped message gets the reason the
/// deliverer would have given it one by one.
package struct OutboxDropRule: Sendable, Equatable {
    /// Non-nil: every push is dropped with this reason (no push provider configured).
    package var pushReason: String?
    /// Non-nil: every event whose type is not in this set is dropped with the reason
    /// `no webhook endpoint subscribes to <type>` (no endpoint takes every type). Nil: events
    /// are left to the claims.
    package var subscribedEventTypes: Set<String>?

    package init(pushReason: String? = nil, subscribedEventTypes: Set<String>? = nil) {
        self.pushReason = pushReason
        self.subscribedEventTypes = subscribedEventTypes
    }

    /// Whether the rule drops anything at all.
    package var dropsAnything: Bool { pushReason != nil || subscribedEventTypes != nil }

    /// The reason for an event of `type` that no endpoint subscribes to.
    package static func noSubscriberReason(_ type: String) -> String { "no webhook endpoint subscribes to \(type)" }
}

/// How one delivery attempt left a message.
package enum OutboxOutcome: Sendable {
    /// Every target done: the message leaves the queue.
    case delivered(id: String)
    /// Still pending, with its updated state (attempts, targets, `nextAttemptAt`).
    case retry(OutboxEnvelope)
    /// Into dead letters (or dropped), with its final state.
    case finished(OutboxEnvelope, OutboxFolder)
    /// Not attempted (not due yet): left as it was.
    case untouched(id: String)

    /// The message's id.
    package var id: String {
        switch self {
        case .delivered(let id), .untouched(let id): id
        case .retry(let e), .finished(let e, _): e.id
        }
    }
}
