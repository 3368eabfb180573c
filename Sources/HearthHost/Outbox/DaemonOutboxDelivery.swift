package import Foundation
package import Logging
import Synchronization
package import HearthKit
package import HearthStore
import HearthOutbound

/// The daemon's outbox (``DaemonOutbox``): an ``OutboxDeliverer`` over the backend's queue,
/// with the configured push provider and the daemon's one HTTP client, rebuilt when SIGHUP
/// reloads the configuration.
///
/// When to look again: at the earliest due date the pass reports; and, on a queue other
/// processes fill without the daemon hearing of it (PostgreSQL's: other daemons, `hearth run`
/// on another machine), within ``OutboxClaimingQueue/pollInterval`` even when nothing is due.
package final class DaemonOutboxDelivery: DaemonOutbox {
    private let store: any StorageBackend
    private let http: any HTTPTransport
    private let logger: Logger
    private let environment: [String: String]
    private let metrics: DaemonMetrics?
    private let deliverer: Mutex<OutboxDeliverer>

    /// - Parameter metrics: told about every delivery attempt; nil: nothing is counted.
    package init(
        config: HearthConfig, store: any StorageBackend, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) {
        self.store = store
        self.http = http
        self.logger = logger
        self.environment = environment
        self.metrics = metrics
        deliverer = Mutex(try Self.make(config: config, store: store, http: http, logger: logger, metrics: metrics, environment: environment))
    }

    private static func make(
        config: HearthConfig, store: any StorageBackend, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics?, environment: [String: String]
    ) throws(ConfigError) -> OutboxDeliverer {
        var deliverer = try OutboxDelivery(config: config, store: store, http: http, logger: logger, environment: environment).deliverer()
        if let metrics { deliverer.observer = { metrics.outboxAttempt($0) } }
        return deliverer
    }

    package func deliverDue(at now: Date) async -> Date? {
        let current = deliverer.withLock { $0 }
        let queue = store.outbox
        let next = await current.deliverDue(from: queue, now: now).nextDue
        guard let poll = queue.pollInterval else { return next }
        return min(next ?? .distantFuture, now.addingTimeInterval(poll))
    }

    package func reload(_ config: HearthConfig) throws(ConfigError) {
        let replacement = try Self.make(config: config, store: store, http: http, logger: logger, metrics: metrics, environment: environment)
        deliverer.withLock { $0 = replacement }
    }
}
