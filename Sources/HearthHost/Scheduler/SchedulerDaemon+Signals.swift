package import Logging
package import ServiceLifecycle
import UnixSignals

extension SchedulerDaemon {
    /// Runs the daemon as the process's main work: in a `ServiceGroup` that turns SIGTERM and
    /// SIGINT into a graceful stop (see ``SchedulerDaemon``) and SIGHUP into ``reload()``.
    /// Returns once the daemon has stopped.
    ///
    /// - Parameter alongside: services that live as long as the daemon (the HTTP endpoint); they
    ///   stop after it (a failure of one stops the daemon too).
    package nonisolated func runHandlingSignals(logger: Logger, alongside: [(service: any Service, name: String)] = []) async throws {
        let reloader = await SighupReloader(daemon: self)
        // Services shut down in reverse order: the SIGHUP listener first, then the daemon, then
        // what runs alongside it (so /readyz can say "stopping" while runs drain).
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: alongside.map {
                .init(service: $0.service, successTerminationBehavior: .cancelGroup, failureTerminationBehavior: .cancelGroup, serviceName: $0.name)
            } + [
                .init(service: self, successTerminationBehavior: .cancelGroup, failureTerminationBehavior: .cancelGroup, serviceName: "scheduler"),
                .init(service: reloader, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "sighup-reloader"),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger))
        try await group.run()
    }
}
