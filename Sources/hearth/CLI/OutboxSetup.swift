import Foundation
import Logging
import HearthKit
import HearthStore
import HearthOutbound
import HearthHost
import HearthHTTP
import HearthPostgres

/// Builds the outbox deliverer for CLI commands: the libcurl client from `[http]`, the push
/// provider from `[push]` (``PushProviders/make(config:http:environment:)``).
enum OutboxSetup {
    /// A deliverer and the HTTP client it uses (shut it down when done).
    static func deliverer(config: HearthConfig, data: DataDirectory, store: (any StorageBackend)? = nil, logger: Logger) throws -> (OutboxDeliverer, CurlHTTPClient) {
        let client = try CurlHTTPClient(options: HTTPClientOptions(config.http))
        do {
            return (try deliverer(config: config, data: data, store: store, http: client, logger: logger), client)
        } catch {
            client.shutdown()
            throw error
        }
    }

    /// A deliverer over `http` with the configured push provider; users' device tokens and
    /// disabled endpoints are in `store` (nil: `data`).
    static func deliverer(config: HearthConfig, data: DataDirectory, store: (any StorageBackend)? = nil, http: any HTTPTransport, logger: Logger) throws(ConfigError) -> OutboxDeliverer {
        let provider: (any PushProvider)?
        do { provider = try PushProviders.make(config: config, http: http) } catch {
            // Without its provider the pushes would be dropped as "no provider": refuse instead.
            throw ConfigError(file: config.file ?? "hearth.toml", "[push] provider = \"\(config.push.provider.rawValue)\" cannot be set up: \(error.description)")
        }
        return OutboxDeliverer(config: config, data: data, store: store, transport: http, pushProvider: provider, logger: logger)
    }

    /// Finishes a crashed commit first, as every writing command does: a committed journal may
    /// hold outbox messages not yet written.
    static func recover(config: HearthConfig, data: DataDirectory, logger: Logger) async throws {
        let r = try await data.recoverInterruptedCommits(holder: "pid=\(getpid()) command=outbox", timeout: config.lockTimeout)
        if !r.finished.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(r.finished)"]) }
    }

    /// Right after a real `hearth run`: delivers what is due, when anything is pending, on
    /// either backend. Failures are logged, never fatal: the messages stay queued for the next
    /// deliverer.
    static func deliverAfterRun(config: HearthConfig, store: any StorageBackend, logger: Logger) async {
        do {
            if let data = store as? DataDirectory {
                guard OutboxStore.hasPending(data) else { return }
                let (deliverer, client) = try deliverer(config: config, data: data, logger: logger)
                defer { client.shutdown() }
                _ = await deliverer.deliverDue(now: Date())
                return
            }
            guard try queue(of: store, config: config).nextDueDate() != nil else { return }
            _ = try await deliverDue(config: config, store: store, logger: logger)
        } catch {
            logger.error("outbox not delivered after the run (the messages stay queued; run `hearth outbox deliver`): \(error)")
        }
    }

    /// The configured backend's outbox (docs/outbox-and-webhooks.md#postgresql).
    static func queue(of store: any StorageBackend, config: HearthConfig) throws(ConfigError) -> any OutboxQueue {
        guard let queue = OutboxQueues.queue(of: store) else {
            throw ConfigError(file: config.file ?? "hearth.toml", "this storage backend (\(store.location)) has no outbox hearth can deliver")
        }
        return queue
    }

    /// Whether message `id` is still pending.
    static func isPending(_ id: String, in queue: any OutboxQueue) throws -> Bool {
        if let directory = queue as? DirectoryOutbox { return OutboxStore.locate(id: id, data: directory.data) == .pending }
        return try queue.messages(in: .pending).contains { $0.id == id }
    }

    /// The data directory a deliverer over PostgreSQL is given (the directory of `hearth.toml`):
    /// it delivers from the shared queue, and reads users' device tokens and disabled endpoints
    /// from the database, so nothing is read or written there.
    static func localState(_ config: HearthConfig) throws -> DataDirectory {
        let file = config.file ?? "hearth.toml"
        return try DataDirectory(root: URL(fileURLWithPath: file).deletingLastPathComponent().path, ownership: config.store)
    }

    /// `hearth outbox deliver`: one pass over the configured backend's outbox.
    static func deliverDue(config: HearthConfig, store: any StorageBackend, logger: Logger) async throws -> OutboxDeliveryReport {
        if let data = store as? DataDirectory {
            try await recover(config: config, data: data, logger: logger)
            let (deliverer, client) = try deliverer(config: config, data: data, logger: logger)
            defer { client.shutdown() }
            return await deliverer.deliverDue(now: Date())
        }
        guard let queue = try queue(of: store, config: config) as? any OutboxClaimingQueue else {
            throw ConfigError(file: config.file ?? "hearth.toml", "this storage backend (\(store.location)) has no outbox hearth can deliver")
        }
        let (deliverer, client) = try deliverer(config: config, data: try localState(config), store: store, logger: logger)
        defer { client.shutdown() }
        return await deliverer.deliverDue(from: queue, now: Date())
    }
}
