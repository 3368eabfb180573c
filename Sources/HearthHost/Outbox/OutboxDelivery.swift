package import Foundation
package import Logging
package import HearthKit
package import HearthStore
package import HearthOutbound

/// How a Hearth process delivers its outbox for a configuration
/// (docs/outbox-and-webhooks.md#delivery-retries-dead-letters), whatever the storage backend:
/// the push provider from `[push]`, the ``OutboxDeliverer`` over the process's one HTTP client
/// and the backend's queue (``OutboxStore/outbox``), `hearth outbox deliver`, and the pass
/// after a real `hearth run`. The daemon's loop is ``DaemonOutboxDelivery``.
package struct OutboxDelivery: Sendable {
    package let config: HearthConfig
    package let store: any StorageBackend
    /// The process's HTTP client (a ``LazyCurlTransport`` in `hearth`: libcurl is loaded only
    /// when a request is sent), shared with the jobs and the pings.
    package let http: any HTTPTransport
    package let logger: Logger
    /// Where `secretEnv` secrets and credentials named by `*Env` keys are looked up.
    package let environment: [String: String]

    package init(
        config: HearthConfig, store: any StorageBackend, http: any HTTPTransport, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.config = config
        self.store = store
        self.http = http
        self.logger = logger
        self.environment = environment
    }

    /// The configured push provider; nil for `provider = "none"`. A provider that cannot be set
    /// up is a configuration error: its pushes would otherwise be dropped as "no provider".
    package func pushProvider() throws(ConfigError) -> (any PushProvider)? {
        do { return try PushProviders.make(config: config, http: http, environment: environment) } catch {
            throw ConfigError(file: config.file ?? "hearth.toml", "[push] provider = \"\(config.push.provider.name)\" cannot be set up: \(error.description)")
        }
    }

    /// A deliverer for the configured `[[webhooks]]`, `[outbox]` and push provider.
    package func deliverer() throws(ConfigError) -> OutboxDeliverer {
        OutboxDeliverer(config: config, store: store, transport: http, pushProvider: try pushProvider(), logger: logger, environment: environment)
    }

    /// Finishes a crashed commit first, as every writing command does: a committed journal may
    /// hold outbox messages not yet written.
    package func recover() async throws {
        let r = try await store.recoverInterruptedCommits(holder: "pid=\(getpid()) command=outbox", timeout: config.lockTimeout)
        if !r.finished.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(r.finished)"]) }
    }

    /// `hearth outbox deliver`: recovery, then one pass over the backend's outbox.
    package func deliverDue(now: Date = Date()) async throws -> OutboxDeliveryReport {
        try await recover()
        return try await deliverer().deliverDue(now: now)
    }

    /// Right after a real `hearth run`: one pass when anything is pending. Failures are logged,
    /// never thrown: the messages stay queued for the next deliverer. Returns the pass's report
    /// (nil: nothing was pending, or the pass could not start).
    @discardableResult
    package func deliverAfterRun(now: Date = Date()) async -> OutboxDeliveryReport? {
        do {
            let queue = store.outbox
            guard try await BlockingIO.run({ () throws(any Error) in try queue.hasPending() }) else { return nil }
            return try await deliverer().deliverDue(from: queue, now: now)
        } catch {
            logger.error("outbox not delivered after the run (the messages stay queued; run `hearth outbox deliver`): \(error)")
            return nil
        }
    }
}
