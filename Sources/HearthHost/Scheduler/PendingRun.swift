import Foundation
import HearthKit
import HearthStore

/// One attempt of a job's run that the daemon will start or has started: its logical time, how
/// the run started, and which attempt it is.
struct PendingRun: Sendable {
    /// The slot; for a run asked for over HTTP or started by writes, the moment it was asked for
    /// or started.
    var logicalTime: Date
    var origin: RunOrigin
    /// 1, then 2, 3, … for its retries (trigger `retry`), which keep the same logical time.
    var attempt = 1

    /// What the attempt is recorded as.
    var trigger: RunRecord.Trigger { attempt > 1 ? .retry : origin.trigger }

    /// The next attempt after this one failed.
    var retry: PendingRun { PendingRun(logicalTime: logicalTime, origin: origin, attempt: attempt + 1) }

    /// The run id the attempt is to have: a run asked for over HTTP's first attempt keeps its
    /// ticket; nil: made from the attempt's start.
    var runID: String? { attempt == 1 ? origin.request?.ticket : nil }
    var dryRun: Bool { origin.request?.dryRun ?? false }
    var force: Bool { origin.request?.force ?? false }
    var ticket: String? { origin.request?.ticket }
}
