import Foundation
import HearthSchedule

/// One enabled (or just disabled) job in the daemon: its schedule, where it stands in it, and
/// its run going or waiting.
struct JobState: Sendable {
    /// The job's current attempt: waiting for its jitter or retry delay, or running.
    struct Active: Sendable {
        enum Phase: Sendable {
            case waiting(until: Date)
            case running(Task<Void, Never>)
        }

        var run: PendingRun
        var phase: Phase
        /// Tells an attempt's end from a later attempt's (the job may be paused and run again meanwhile).
        var id: Int
    }

    var config: JobConfig
    var schedule: Schedule
    /// The last slot dealt with (persisted); the next one is computed from it.
    var lastSlot: Date
    var nextSlot: Date?
    var enabled = true
    var active: Active?
    var queue: [PendingRun] = []

    var isBusy: Bool { active != nil || !queue.isEmpty }
    var isRunning: Bool {
        if case .running? = active?.phase { return true }
        return false
    }
}
