import ServiceLifecycle
import UnixSignals

/// Reloads the daemon's configuration on every SIGHUP, until the service group shuts down.
package struct SighupReloader: Service {
    package let daemon: SchedulerDaemon
    let signals: UnixSignalsSequence

    /// Traps SIGHUP at once (before the daemon reports READY=1), so that a reload requested
    /// right after start-up is not the default action, which would end the process.
    package init(daemon: SchedulerDaemon) async {
        self.daemon = daemon
        self.signals = await UnixSignalsSequence(trapping: .sighup)
    }

    package func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            await daemon.reload()
        }
    }
}
