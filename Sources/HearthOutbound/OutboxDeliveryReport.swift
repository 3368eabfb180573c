package import Foundation
package import HearthKit

/// What one delivery pass (``OutboxDeliverer/deliverDue(now:)``) did, counted in messages.
package struct OutboxDeliveryReport: Sendable, Equatable {
    /// Finished: every target delivered (or its token removed, or its endpoint disabled by a 410).
    package var delivered = 0
    /// Attempted, not finished, scheduled again.
    package var retrying = 0
    /// Moved to `dead/`.
    package var deadLettered = 0
    /// Moved to `dropped/`: nothing to deliver to.
    package var dropped = 0
    /// Claimed by another deliverer at the moment; left alone.
    package var busy = 0
    /// Pending but not due yet.
    package var notDue = 0
    /// Device tokens removed from users' documents.
    package var tokensRemoved = 0
    /// Webhook endpoints disabled by a 410.
    package var endpointsDisabled = 0
    /// The earliest time a message still pending is due, if any (for a message another
    /// deliverer held, a time to look again).
    package var nextDue: Date?
    /// Failures of the outbox itself (unreadable directory, a write that failed).
    package var errors: [String] = []

    package init() {}

    /// Whether the pass attempted anything.
    package var attemptedAny: Bool { delivered + retrying + deadLettered + dropped > 0 }

    /// `Outbox: 3 delivered, 1 retrying, 0 dead-lettered, 2 dropped.` (plus the notable extras)
    package var summaryLine: String {
        var s = "Outbox: \(delivered) delivered, \(retrying) retrying, \(deadLettered) dead-lettered, \(dropped) dropped"
        if notDue > 0 { s += ", \(notDue) not due yet" }
        if busy > 0 { s += ", \(busy) being delivered by another process" }
        if tokensRemoved > 0 { s += "; \(tokensRemoved) device token\(tokensRemoved == 1 ? "" : "s") removed" }
        if endpointsDisabled > 0 { s += "; \(endpointsDisabled) endpoint\(endpointsDisabled == 1 ? "" : "s") disabled (410)" }
        return s + "."
    }

    /// The stable JSON form (`hearth outbox deliver --format json`).
    package var json: JSONObject {
        JSONObject([
            ("delivered", .int(Int64(delivered))), ("retrying", .int(Int64(retrying))), ("deadLettered", .int(Int64(deadLettered))),
            ("dropped", .int(Int64(dropped))), ("busy", .int(Int64(busy))), ("notDue", .int(Int64(notDue))),
            ("tokensRemoved", .int(Int64(tokensRemoved))), ("endpointsDisabled", .int(Int64(endpointsDisabled))),
            ("nextDue", nextDue.map(Timestamp.json) ?? .null), ("errors", .array(errors.map { .string($0) })),
        ])
    }

    mutating func noteDue(_ date: Date) {
        if let current = nextDue, current <= date { return }
        nextDue = date
    }
}
