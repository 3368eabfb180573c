/// The folders an outbox message can be in, whatever the backend keeps them as
/// (docs/outbox-and-webhooks.md): waiting for delivery, dead letters, and messages with nothing
/// to deliver to.
package enum OutboxFolder: String, Sendable, CaseIterable {
    case pending, dead, dropped

    /// How many dropped messages are kept.
    package static let droppedRetention = 1000
}
