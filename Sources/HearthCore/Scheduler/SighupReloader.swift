public import ServiceLifecycle
import UnixSignals

/// Reloads the daemon's configuration on every SIGHUP, until the service group shuts down.
public struct SighupReloader: Service {
    public let daemon: SchedulerDaemon

    public init(daemon: SchedulerDaemon) {
        self.daemon = daemon
    }

    public func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            await daemon.reload()
        }
    }
}
