package import Foundation
package import HearthKit
package import HearthStore

/// How to run a job once.
package struct RunOptions: Sendable {
    package var trigger: RunRecord.Trigger
    /// `T`; nil: the clock's now.
    package var logicalTime: Date?
    /// `S` as the job sees it (`ctx.startTime`); nil: the clock's now at start. The run
    /// record's start and end always come from the clock (the wall clock outside tests), so
    /// `hearth run --now <past>` still records how long the run really took.
    package var startTime: Date?
    package var dryRun: Bool
    /// `--param k=v` values (strings, parsed against the job's declared parameters).
    package var parameters: [String: String]
    package var attempt: Int
    /// Called with the number of documents read so far (for TTY progress).
    package var progress: (@Sendable (Int) -> Void)?
    /// The run id; nil: made from the start time (the daemon picks it when it queues a run
    /// asked for over HTTP, to answer with it before the run starts).
    package var runID: String?
    /// A run started by writes: what was written (``JobContext/changes``; nil: read
    /// everything), the commit chain it continues (``RunCommit/chain``), and the paths for its
    /// record.
    package var changes: ChangedDocuments?
    package var chain = 0
    package var triggerPaths: [String] = []
    package var triggerPathCount = 0
    /// A run an app's call started (trigger `call`): the call the job sees. Such a run takes no
    /// job lock (calls run side by side with each other and with the job's other runs; the
    /// commit's version check keeps them apart) and re-runs on a conflict up to
    /// ``Runner/maxCallReruns`` times (docs/callables.md#a-call-is-a-run).
    package var call: Call?

    package init(trigger: RunRecord.Trigger = .cli, logicalTime: Date? = nil, startTime: Date? = nil, dryRun: Bool = false, parameters: [String: String] = [:], attempt: Int = 1, progress: (@Sendable (Int) -> Void)? = nil, runID: String? = nil) {
        self.runID = runID
        self.trigger = trigger
        self.logicalTime = logicalTime
        self.startTime = startTime
        self.dryRun = dryRun
        self.parameters = parameters
        self.attempt = attempt
        self.progress = progress
    }
}

/// What a run produced.
package struct RunOutcome: Sendable {
    package var record: RunRecord
    package var plan: Plan
    /// The error that failed the run, if any.
    package var error: (any Error)?
    /// For a call: what the caller is answered.
    package var answer: CallAnswer?
}

/// A run exceeded its `timeout` and was cancelled.
package struct RunTimeoutError: Error, Sendable, CustomStringConvertible {
    package var timeout: Duration
    package var description: String { "the run exceeded its timeout of \(DurationFormat.format(timeout)) and was cancelled; nothing was committed. Raise `timeout` for this job if it needs longer." }
}

