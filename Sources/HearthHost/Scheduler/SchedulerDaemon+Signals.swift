package import Logging
import ServiceLifecycle
import UnixSignals
import HearthKit

extension SchedulerDaemon {
    /// Runs the daemon as the process's main work: in a `ServiceGroup` that turns SIGTERM and
    /// SIGINT into a graceful stop (see ``SchedulerDaemon``) and SIGHUP into ``reload()``.
    /// Returns once the daemon has stopped.
    package nonisolated func runHandlingSignals(logger: Logger) async throws {
        let reloader = await SighupReloader(daemon: self)
        // Services shut down in reverse order: the SIGHUP listener first, then the daemon.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: self, successTerminationBehavior: .cancelGroup, failureTerminationBehavior: .cancelGroup, serviceName: "scheduler"),
                .init(service: reloader, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "sighup-reloader"),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger))
        try await group.run()
    }
}
