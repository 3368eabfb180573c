package import Foundation
package import HearthKit
package import HearthStore

/// What the scheduler daemon knows right now, for the status page and the gauges
/// (``SchedulerDaemon/status(fireCount:)``).
package struct DaemonStatus: Sendable {
    package struct Job: Sendable {
        package var name: String
        package var schedule: String
        /// The collections whose writes are to start a run (docs/triggers.md; the change feed
        /// is not built, so only the schedule starts runs today).
        package var triggers: [String] = []
        package var timeZone: TimeZone
        package var enabled: Bool
        /// The next slots (empty when disabled or the schedule has no more).
        package var nextFires: [Date]
        package var running: Bool
        package var pause: JobPause?
        /// The newest record of the job (a run or a skipped slot).
        package var lastRecord: RunRecord?
        /// The end of the newest succeeded run.
        package var lastSuccess: Date?
        package var consecutiveFailures: Int
        /// Whether apps can call it, and with which `auth` (nil: not callable; docs/callables.md).
        package var callAuth: CallAuth?
    }

    package var jobs: [Job]
    /// The scheduling loop has started and not stopped.
    package var alive: Bool
    package var stopping: Bool
    package var startedAt: Date?
    package var configFile: String?
}
