package import Logging
import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle
import Synchronization
import HearthKit
package import HearthStore
package import HearthHost

/// The daemon's HTTP endpoint (docs/operations/monitoring.md, docs/operations/api.md):
/// `/metrics`, `/healthz`, `/readyz`, the status page `/`, `/jobs/{name}`, `/runs/{id}`, the
/// actions (run now, pause, resume, retry a dead letter) and `/login`, on Hummingbird. A `Service` in the daemon's
/// service group: a graceful shutdown stops accepting and lets requests in flight finish.
/// Built only when `[server]` is configured, so without it no event loop is started.
package struct StatusServer: Service {
    package let server: ServerConfig
    /// The configured tokens (docs/operations/monitoring.md#tokens-and-roles); empty: reads
    /// are open and actions impossible.
    package let tokens: [ServerConfig.Token]
    package let daemon: SchedulerDaemon
    package let metrics: DaemonMetrics
    package let data: any StorageBackend
    package let plans: PlanCache?
    /// Checks the app users' ID tokens of calls (`[auth]`); nil: a call with a token is
    /// answered `401 UNAUTHENTICATED`.
    package let verifier: (any CallerVerifier)?
    package let logger: Logger
    /// Called with the port once listening (the configured one, or the one picked for port 0).
    package let onListening: @Sendable (Int) -> Void
    /// Named in the error when the address cannot be bound.
    package let configFile: String?

    package init(
        server: ServerConfig, tokens: [ServerConfig.Token], daemon: SchedulerDaemon, metrics: DaemonMetrics, data: any StorageBackend, plans: PlanCache?,
        verifier: (any CallerVerifier)? = nil, logger: Logger, configFile: String?, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.verifier = verifier
        self.configFile = configFile
        self.server = server
        self.tokens = tokens
        self.daemon = daemon
        self.metrics = metrics
        self.data = data
        self.plans = plans
        self.logger = logger
        self.onListening = onListening
    }

    package func run() async throws {
        let router = Router(context: EndpointContext.self)
        let credentials = Credentials(tokens)
        router.add(middleware: AccessMiddleware(credentials: credentials, healthNeedsToken: server.healthNeedsToken))
        StatusRoutes(daemon: daemon, metrics: metrics, data: data, plans: plans, credentials: credentials, logger: logger).register(on: router)
        ActionRoutes(daemon: daemon, data: data, plans: plans, metrics: metrics, credentials: credentials, logger: logger).register(on: router)
        let calls = CallableRoutes(daemon: daemon, verifier: verifier, metrics: metrics, logger: logger)
        calls.register("/call/{name}", on: router)
        calls.register("/{project}/{region}/{name}", on: router)
        // Hummingbird's own logs (one line per connection error, …) only at warning and above.
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .warning)
        let (logger, address, onListening) = (self.logger, server.listen, self.onListening)
        let listening = Atomic(false)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(server.host, port: server.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice("HTTP endpoint listening", metadata: ["address": "\(address)", "port": "\(port)"])
                listening.store(true, ordering: .relaxed)
                onListening(port)
            },
            logger: serverLogger)
        do { try await app.run() } catch where !listening.load(ordering: .relaxed) {
            throw ConfigError(file: configFile ?? "hearth.toml", "[server] listen = \(JSONWriter.quoted(address)): cannot listen (\(error)); choose a free port or address, or stop what uses it")
        }
    }
}
