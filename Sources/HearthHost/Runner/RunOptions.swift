public import Foundation
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// How to run a job once.
public struct RunOptions: Sendable {
    public var trigger: RunRecord.Trigger
    /// `T`; nil: the clock's now.
    public var logicalTime: Date?
    /// `S`; nil: the clock's now at start.
    public var startTime: Date?
    public var dryRun: Bool
    /// `--param k=v` values (strings, parsed against the job's declared parameters).
    public var parameters: [String: String]
    public var attempt: Int
    /// Called with the number of documents read so far (for TTY progress).
    public var progress: (@Sendable (Int) -> Void)?

    public init(trigger: RunRecord.Trigger = .cli, logicalTime: Date? = nil, startTime: Date? = nil, dryRun: Bool = false, parameters: [String: String] = [:], attempt: Int = 1, progress: (@Sendable (Int) -> Void)? = nil) {
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
public struct RunOutcome: Sendable {
    public var record: RunRecord
    public var plan: Plan
    /// The error that failed the run, if any.
    public var error: (any Error)?
}

/// A run exceeded its `timeout` and was cancelled.
public struct RunTimeoutError: Error, Sendable, CustomStringConvertible {
    public var timeout: Duration
    public var description: String { "the run exceeded its timeout of \(DurationFormat.format(timeout)) and was cancelled; nothing was committed. Raise `timeout` for this job if it needs longer." }
}

