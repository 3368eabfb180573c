import Foundation

/// Where the daemon's loop is in its life — started, asleep, stopping — and what tells systemd
/// (docs/scheduler.md#running-the-daemon, docs/scheduler.md#signals).
struct DaemonLife: Sendable {
    /// `sd_notify` target; nil when not under systemd.
    let notifier: SystemdNotifier?
    /// Reads the configuration again (SIGHUP); nil: reload is a no-op.
    let reloadSource: (@Sendable () throws -> HearthConfig)?
    var started = false
    /// The loop has started and not stopped.
    var alive = false
    var startedAt: Date?
    /// Nothing new starts.
    var stopping = false
    /// Running jobs are cancelled without waiting for `shutdownGrace`.
    var forceCancel = false
    /// The loop's sleep, cancelled by a nudge; a nudge while awake makes the next sleep return at once.
    var sleeper: Task<Void, Never>?
    var pendingNudge = false
    /// The last `STATUS=` told to systemd.
    var lastStatus = ""

    /// Tells systemd, when under it.
    func notify(_ state: String) {
        _ = notifier?.notify(state)
    }
}
