/// A run asked for over HTTP (``SchedulerDaemon/requestRun(job:parameters:dryRun:force:)``,
/// docs/operations/api.md#run-a-job-now).
struct RunNowRequest: Sendable {
    /// The first attempt's run id, which the run's waiters know it by (``RunTickets``).
    var ticket: String
    var parameters: [String: String]
    var dryRun: Bool
    /// Runs even while the job is paused.
    var force: Bool
}
