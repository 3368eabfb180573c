package import Foundation
package import HearthKit

/// The outbox (docs/outbox-and-webhooks.md): the queue a backend's commits fill, messages queued
/// outside a commit, and the webhook endpoints a 410 disabled.
package protocol OutboxStore: Sendable {
    /// The outbox queue the backend's commits fill: a fresh value for each delivery pass
    /// (``OutboxClaimingQueue``), also what `hearth outbox list` and the status page read.
    var outbox: any OutboxClaimingQueue { get }

    /// Queues one message outside a run's commit (a failed run's `job.failed` event).
    func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws

    /// Webhook endpoints disabled by a 410, by endpoint name (blocking).
    func disabledEndpoints() throws -> [String: DisabledEndpoint]

    /// Records that endpoint `name` is disabled, replacing an earlier entry (blocking).
    func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws
}
