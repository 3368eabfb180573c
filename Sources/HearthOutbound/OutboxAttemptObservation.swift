/// One delivery attempt of an outbox message, as ``OutboxDeliverer/observer`` is told about it:
/// the message's kind (`event`, `push`), where the attempt left it, and how long it took.
package struct OutboxAttemptObservation: Sendable, Equatable {
    package enum Result: String, Sendable, CaseIterable {
        /// Every target done: the message is finished.
        case delivered
        /// Scheduled for another attempt.
        case retry
        /// Moved to the dead letters.
        case dead
        /// Nothing to deliver to (no endpoint subscribes, no device token).
        case dropped
    }

    package var kind: String
    package var result: Result
    package var duration: Duration

    package init(kind: String, result: Result, duration: Duration) {
        self.kind = kind
        self.result = result
        self.duration = duration
    }
}
