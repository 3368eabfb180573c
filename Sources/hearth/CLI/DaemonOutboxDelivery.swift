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
    private let deliverer: Mutex<OutboxDeliverer>

    init(config: HearthConfig, data: DataDirectory, http: any HTTPTransport, logger: Logger) throws(ConfigError) {
        self.data = data
        self.http = http
        self.logger = logger
        deliverer = Mutex(try OutboxSetup.deliverer(config: config, data: data, http: http, logger: logger))
    }

    func deliverDue(at now: Date) async -> Date? {
        let current = deliverer.withLock { $0 }
        return await current.deliverDue(now: now).nextDue
    }

    func reload(_ config: HearthConfig) throws(ConfigError) {
        let replacement = try OutboxSetup.deliverer(config: config, data: data, http: http, logger: logger)
        deliverer.withLock { $0 = replacement }
    }
}
