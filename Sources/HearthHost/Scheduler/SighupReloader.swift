public import ServiceLifecycle
import UnixSignals
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// Reloads the daemon's configuration on every SIGHUP, until the service group shuts down.
public struct SighupReloader: Service {
    public let daemon: SchedulerDaemon
    let signals: UnixSignalsSequence

    /// Traps SIGHUP at once (before the daemon reports READY=1), so that a reload requested
    /// right after start-up is not the default action, which would end the process.
    public init(daemon: SchedulerDaemon) async {
        self.daemon = daemon
        self.signals = await UnixSignalsSequence(trapping: .sighup)
    }

    public func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            await daemon.reload()
        }
    }
}
