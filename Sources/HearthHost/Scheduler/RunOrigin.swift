import HearthKit
import HearthStore

/// How a run of the daemon started: what it is recorded as, whether it claims its slot, and
/// what it carries into each of its attempts. A new way to start runs (a call from an app) is a
/// case here.
///
/// A retry is not an origin: it is attempt 2, 3, … of the same run (recorded with trigger
/// `retry`, see ``PendingRun/trigger``), so it keeps what its origin carries — the writes, the
/// ticket.
enum RunOrigin: Sendable {
    /// A slot reached on time (docs/scheduler.md#running-the-daemon).
    case schedule
    /// A missed slot run late, per `catchUp` (docs/scheduler.md#policies).
    case catchUp
    /// Writes the change feed reported (docs/triggers.md#what-the-daemon-does-with-writes): the
    /// ones the run takes.
    case write(TriggerChanges)
    /// Asked for over HTTP (docs/operations/api.md#run-a-job-now).
    case runNow(RunNowRequest)
    /// An app's call (docs/callables.md): run at once, beside the job's other runs, never
    /// retried (the caller is waiting, and calls again).
    case call(Call)

    /// The trigger of the run's first attempt.
    var trigger: RunRecord.Trigger {
        switch self {
        case .schedule: .schedule
        case .catchUp: .catchUp
        case .write: .write
        case .runNow: .runNow
        case .call: .call
        }
    }

    /// Scheduled and catch-up runs start a random `[0, jitter]` after their slot; the others at once.
    var hasJitter: Bool {
        switch self {
        case .schedule, .catchUp: true
        case .write, .runNow, .call: false
        }
    }

    var request: RunNowRequest? {
        if case .runNow(let request) = self { return request }
        return nil
    }
}
