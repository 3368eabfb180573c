package import Foundation

/// The outbox as the daemon drives it (docs/outbox-and-webhooks.md#delivery-retries-dead-letters: "delivered by the daemon continuously"): a
/// delivery pass when something is due, and when the next message is due, so the daemon can
/// sleep until then instead of polling. ``OutboxDeliverer`` is the real one.
///
/// The daemon runs a pass at start (messages left by earlier runs or a crash), after every run
/// (it may have committed messages or `job.*` events), and whenever the date the previous pass returned comes. Messages
/// committed by a CLI run that the CLI could not deliver are picked up at the daemon's next
/// pass.
package protocol DaemonOutbox: Sendable {
    /// Delivers every message due at `now` (one attempt each). Returns when the next message
    /// still pending is due (possibly already), nil when none is pending. Never throws:
    /// failures stay in the outbox for a later pass.
    func deliverDue(at now: Date) async -> Date?

    /// Takes a reloaded configuration (webhook endpoints, push provider, limits). Throws when
    /// it cannot be used; the daemon then keeps the old configuration.
    func reload(_ config: HearthConfig) throws(ConfigError)
}
