package import Foundation
package import HearthKit
package import Logging
package import HearthStore
package import HearthOutbound

// The outbound layer takes plain options; these build them from the whole configuration.

extension OutboxDeliverer {
    /// A deliverer for the configured `[[webhooks]]`, `[outbox]` and `lockTimeout`.
    package init(
        config: HearthConfig, store: any StorageBackend, transport: any HTTPTransport, pushProvider: (any PushProvider)?,
        logger: Logger, options: Options? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            webhooks: config.webhooks, store: store, transport: transport, pushProvider: pushProvider, logger: logger,
            options: options ?? Options(config: config), environment: environment, clock: clock)
    }
}

extension OutboxDeliverer.Options {
    package init(config: HearthConfig) {
        self.init(outbox: config.outbox, lockTimeout: config.lockTimeout)
    }
}

extension PushProviders {
    /// The provider for `config.push`, or nil for `provider = "none"`.
    package static func make(
        config: HearthConfig, http: any HTTPTransport, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PushSetupError) -> (any PushProvider)? {
        try make(push: config.push, http: http, environment: environment)
    }
}
