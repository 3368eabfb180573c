import Foundation
import Logging
import Synchronization
import HearthKit
import HearthStore
import HearthOutbound
import HearthHost

/// The daemon's outbox: an ``OutboxDeliverer`` with the configured push provider, over the
/// daemon's HTTP client, rebuilt when SIGHUP reloads the configuration. On PostgreSQL it takes
/// batches from the shared queue (docs/outbox-and-webhooks.md#postgresql).
final class DaemonOutboxDelivery: DaemonOutbox {
    private let data: DataDirectory
    /// Users' device tokens and disabled endpoints (nil: `data`).
    private let store: (any StorageBackend)?
    /// PostgreSQL's outbox; nil on a data directory (the deliverer's own per-file claims).
    private let queue: (any OutboxClaimingQueue)?
    private let http: any HTTPTransport
    private let logger: Logger
    private let metrics: DaemonMetrics?
    private let deliverer: Mutex<OutboxDeliverer>

    /// - Parameter metrics: told about every delivery attempt; nil: nothing is counted.
    init(config: HearthConfig, data: DataDirectory, store: (any StorageBackend)? = nil, queue: (any OutboxClaimingQueue)? = nil, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics? = nil) throws(ConfigError) {
        self.data = data
        self.store = store
        self.queue = queue
        self.http = http
        self.logger = logger
        self.metrics = metrics
        deliverer = Mutex(try Self.make(config: config, data: data, store: store, http: http, logger: logger, metrics: metrics))
    }

    /// The outbox of `store`: its own on a data directory, the shared queue on PostgreSQL.
    convenience init(config: HearthConfig, store: any StorageBackend, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics? = nil) throws {
        if let data = store as? DataDirectory {
            try self.init(config: config, data: data, http: http, logger: logger, metrics: metrics)
            return
        }
        guard let queue = try OutboxSetup.queue(of: store, config: config) as? any OutboxClaimingQueue else {
            throw ConfigError(file: config.file ?? "hearth.toml", "this storage backend (\(store.location)) has no outbox hearth can deliver")
        }
        try self.init(config: config, data: try OutboxSetup.localState(config), store: store, queue: queue, http: http, logger: logger, metrics: metrics)
    }

    private static func make(config: HearthConfig, data: DataDirectory, store: (any StorageBackend)?, http: any HTTPTransport, logger: Logger, metrics: DaemonMetrics?) throws(ConfigError) -> OutboxDeliverer {
        var deliverer = try OutboxSetup.deliverer(config: config, data: data, store: store, http: http, logger: logger)
        if let metrics { deliverer.observer = { metrics.outboxAttempt($0) } }
        return deliverer
    }

    func deliverDue(at now: Date) async -> Date? {
        let current = deliverer.withLock { $0 }
        if let queue {
            // Other processes (`hearth run`, other daemons) add to the shared queue too: look again
            // within `queuePoll` even when nothing is due.
            let next = await current.deliverDue(from: queue, now: now).nextDue
            return min(next ?? .distantFuture, now.addingTimeInterval(Self.queuePoll))
        }
        return await current.deliverDue(now: now).nextDue
    }

    /// Seconds between looks at PostgreSQL's outbox when nothing is due.
    static let queuePoll: TimeInterval = 30

    func reload(_ config: HearthConfig) throws(ConfigError) {
        let replacement = try Self.make(config: config, data: data, store: store, http: http, logger: logger, metrics: metrics)
        deliverer.withLock { $0 = replacement }
    }
}
