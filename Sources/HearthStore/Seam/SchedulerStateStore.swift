/// The scheduler daemon's persisted state: per job, the last slot it handled
/// (``SchedulerState``).
package protocol SchedulerStateStore: Sendable {
    /// The scheduler's last handled slot of `job` (nil: never scheduled here).
    func schedulerState(job: String) -> SchedulerState?

    /// Saves the scheduler's last handled slot of a job.
    func saveSchedulerState(_ state: SchedulerState) throws
}
