import Foundation
import Logging
import Synchronization
import HearthKit
import HearthStore
import HearthOutbound
import HearthHost

/// The daemon's outbox: an ``OutboxDeliverer`` with the configured push provider, over the
/// daemon's HTTP client, rebuilt when SIGHUP reloads the configuration.
final class DaemonOutboxDelivery: DaemonOutbox {
    private let data: DataDirectory
    private let http: any HTTPTransport
    private let logger: Logger
    private let metrics: DaemonMetrics?
    private let deliverer: Mutex<OutboxDeliverer>

    /// - Parameter metrics: told about every delivery attempt; nil: nothing is counted.
    init(config: HearthConfig, data: DataDirectory, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics? = nil) throws(ConfigError) {
        self.data = data
        self.http = http
        self.logger = logger
        self.metrics = metrics
        deliverer = Mutex(try Self.make(config: config, data: data, http: http, logger: logger, metrics: metrics))
    }

    private static func make(config: HearthConfig, data: DataDirectory, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics?) throws(ConfigError) -> OutboxDeliverer {
        var deliverer = try OutboxSetup.deliverer(config: config, data: data, http: http, logger: logger)
        if let metrics { deliverer.observer = { metrics.outboxAttempt($0) } }
        return deliverer
    }

    func deliverDue(at now: Date) async -> Date? {
        let current = deliverer.withLock { $0 }
        return await current.deliverDue(now: now).nextDue
    }

    func reload(_ config: HearthConfig) throws(ConfigError) {
        let replacement = try Self.make(config: config, data: data, http: http, logger: logger, metrics: metrics)
        deliverer.withLock { $0 = replacement }
    }
}
