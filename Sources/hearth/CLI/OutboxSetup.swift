import Foundation
import Logging
import HearthKit
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthOutbound
import HearthHost

/// Builds the outbox deliverer for CLI commands: the libcurl client from `[http]`, the push
/// provider from `[push]` (``PushProviders/make(config:http:environment:)``).
enum OutboxSetup {
    /// A deliverer and the HTTP client it uses (shut it down when done).
    static func deliverer(config: HearthConfig, data: DataDirectory, logger: Logger) throws -> (OutboxDeliverer, CurlHTTPClient) {
        let client = try CurlHTTPClient(options: HTTPClientOptions(
            connectTimeout: config.http.connectTimeout, timeout: config.http.timeout, caFile: config.http.caFile))
        let provider: (any PushProvider)?
        do {
            provider = try PushProviders.make(config: config, http: client)
        } catch {
            client.shutdown()
            // Without its provider the pushes would be dropped as "no provider": refuse instead.
            throw ConfigError(file: config.file ?? "hearth.toml", "[push] provider = \"\(config.push.provider.rawValue)\" cannot be set up: \(error.description)")
        }
        return (OutboxDeliverer(config: config, data: data, transport: client, pushProvider: provider, logger: logger), client)
    }

    /// Finishes a crashed commit first, as every writing command does: a committed journal may
    /// hold outbox messages not yet written.
    static func recover(config: HearthConfig, data: DataDirectory, logger: Logger) throws {
        let committer = Committer(data: data)
        let lock = try committer.lock(holder: "pid=\(getpid()) command=outbox", timeout: config.lockTimeout)
        defer { lock.release() }
        let r = try committer.recover()
        if !r.redone.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(r.redone)"]) }
    }

    /// Right after a real `hearth run`: delivers what is due, when anything is pending.
    /// Failures are logged, never fatal: the messages stay queued for the next deliverer.
    static func deliverAfterRun(config: HearthConfig, data: DataDirectory, logger: Logger) async {
        guard OutboxStore.hasPending(data) else { return }
        do {
            let (deliverer, client) = try deliverer(config: config, data: data, logger: logger)
            defer { client.shutdown() }
            _ = await deliverer.deliverDue(now: Date())
        } catch {
            logger.error("outbox not delivered after the run (the messages stay queued; run `hearth outbox deliver`): \(error)")
        }
    }
}
