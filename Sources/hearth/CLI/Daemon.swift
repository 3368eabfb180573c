import ArgumentParser
import Foundation
import Jobs
import HearthHost
import HearthAuth
import HearthKit
import HearthStore
import HearthHTTP
import HearthServer
import Logging
import ServiceLifecycle

extension Hearth {
    /// `hearth daemon`: the scheduler (docs/scheduler.md#running-the-daemon).
    struct Daemon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "daemon",
            abstract: "Run the scheduler: every enabled job at the slots of its schedule.",
            discussion: """
                Delivers the outbox as runs commit messages, and again when retries are due. \
                Runs until SIGTERM or SIGINT: then no new run starts, running jobs get shutdownGrace \
                to finish, and are cancelled after it (committing nothing); exit 0. SIGHUP reloads the \
                configuration (an invalid one is logged and the old one kept). Under systemd \
                (NOTIFY_SOCKET set) it sends READY=1 and STOPPING=1; see `hearth export systemd`. With \
                [server] listen it serves /metrics, /healthz, /readyz and a status page at / \
                (docs/operations/monitoring.md).
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            // One arena per core, not glibc's eight, and thresholds that do not grow: a daemon
            // lives long, and idle it should rest near its size at start (HeapTrim).
            HeapTrim.limitArenas(to: ProcessInfo.processInfo.activeProcessorCount)
            HeapTrim.fixThresholds()
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                let store = try global.openStore(config)
                if let unchecked = Check.callsWithoutKeys(config) { logger.warning("\(unchecked)") }
                let clock = SystemSchedulerClock()
                // One HTTP client (created on first use) for the jobs, the outbox and the pings.
                let http = LazyCurlTransport(config: config.http)
                let options = global
                // Finish a crashed commit first, as every writing command does (its outbox
                // messages become deliverable); a store whose commits are transactions has none.
                let recovered = try await store.recoverInterruptedCommits(holder: "pid=\(getpid()) command=daemon", timeout: config.lockTimeout)
                if !recovered.finished.isEmpty { logger.notice("recovered committed journals", metadata: ["runs": "\(recovered.finished)"]) }
                // The HTTP endpoint, its metrics and the run pages' plans exist only with [server]
                // (docs/operations/monitoring.md): without it no event loop is started.
                let tokens = try config.server?.resolveTokens(environment: ProcessInfo.processInfo.environment, configFile: config.file ?? "(built-in defaults)") ?? []
                let metrics = config.server.map { _ in DaemonMetrics() }
                let plans = config.server.map { _ in PlanCache(limit: 100) }
                let daemon = try SchedulerDaemon(
                    config: config, data: store,
                    runner: RunnerJobRunner(data: store, registry: JobCatalog.registry, clock: clock, http: http, logger: logger, plans: plans),
                    clock: clock, pinger: DaemonHTTP.pinger(config: config, transport: http, logger: logger),
                    outbox: try DaemonOutboxDelivery(config: config, store: store, http: http, logger: logger, metrics: metrics),
                    notifier: SystemdNotifier(),
                    reloadSource: { try options.loadConfig(logger: logger) }, metrics: metrics, logger: logger)
                var alongside: [(service: any Service, name: String)] = []
                if let server = config.server, let metrics {
                    // The apps' ID tokens (docs/callables.md#id-tokens); keys are fetched on first use.
                    let verifier = config.auth.map { IDTokenVerifier(config: $0, http: http, clock: SystemClock(), logger: logger) }
                    let endpoint = StatusServer(
                        server: server, tokens: tokens, daemon: daemon, metrics: metrics, data: store, plans: plans, verifier: verifier, logger: logger,
                        configFile: config.file)
                    alongside.append((endpoint, "http-endpoint"))
                }
                try await daemon.runHandlingSignals(logger: logger, alongside: alongside)
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
