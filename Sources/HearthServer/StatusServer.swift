package import Logging
import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle
import Synchronization
import HearthKit
package import HearthStore
package import HearthHost

/// The daemon's HTTP endpoint (docs/operations/monitoring.md): `/metrics`, `/healthz`,
/// `/readyz`, the status page `/` and `/runs/{id}`, on Hummingbird. A `Service` in the daemon's
/// service group: a graceful shutdown stops accepting and lets requests in flight finish.
/// Built only when `[server]` is configured, so without it no event loop is started.
package struct StatusServer: Service {
    package let server: ServerConfig
    /// Required in `Authorization: Bearer …` on every request when set.
    package let token: String?
    package let daemon: SchedulerDaemon
    package let metrics: DaemonMetrics
    package let data: any StorageBackend
    package let plans: PlanCache?
    package let logger: Logger
    /// Called with the port once listening (the configured one, or the one picked for port 0).
    package let onListening: @Sendable (Int) -> Void
    /// Named in the error when the address cannot be bound.
    package let configFile: String?

    package init(
        server: ServerConfig, token: String?, daemon: SchedulerDaemon, metrics: DaemonMetrics, data: any StorageBackend, plans: PlanCache?,
        logger: Logger, configFile: String?, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.configFile = configFile
        self.server = server
        self.token = token
        self.daemon = daemon
        self.metrics = metrics
        self.data = data
        self.plans = plans
        self.logger = logger
        self.onListening = onListening
    }

    package func run() async throws {
        let router = Router(context: BasicRequestContext.self)
        if let token { router.add(middleware: BearerTokenMiddleware<BasicRequestContext>(token: token)) }
        let routes = StatusRoutes(daemon: daemon, metrics: metrics, data: data, plans: plans, logger: logger)
        router.get("/healthz") { _, _ in routes.healthz() }
        router.get("/readyz") { _, _ in await routes.readyz() }
        router.get("/metrics") { _, _ in await routes.metricsText() }
        router.get("/") { _, _ in await routes.index() }
        router.get("/runs/{id}") { _, context in await routes.run(id: context.parameters.get("id") ?? "") }
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
