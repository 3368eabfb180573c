public import Foundation
import Synchronization

/// A job's view of one run: the times, zone and parameters, reads from the data directory,
/// and the changeset it builds. Nothing reaches the disk until the runner commits.
public final class JobContext: Sendable {
    public let jobName: String
    /// The run's id (as in its run record); empty outside a runner.
    public let runID: String
    /// Whether this run only builds a plan (nothing will be committed).
    public let isDryRun: Bool
    /// `T`: the schedule slot this run serves (windows are computed from it).
    public let logicalTime: Date
    /// `S`: the wall clock at start (audit timestamps written into documents).
    public let startTime: Date
    public let timeZone: TimeZone
    public let parameters: JobParameters
    public let store: any DocumentStore
    public let policy: InvalidDocumentPolicy
    /// For a run started by writes, the documents written since the job last took its changes;
    /// nil when the run must read everything (see ``ChangedDocuments``).
    public let changes: ChangedDocuments?
    /// For a run an app's call started, the call (its `data`, the caller's uid and claims);
    /// nil for every other run (docs/callables.md#writing-a-callable-job).
    public let call: Call?

    struct State {
        var changeset = Changeset()
        var warnings: [String] = []
        var issues: [DocumentIssue] = []
        var invalidPaths: Set<DocumentPath> = []
        var documentsRead = 0
        var result: JSONValue?
    }

    let state = Mutex(State())
    private let progress: (@Sendable (Int) -> Void)?

    public init(
        jobName: String, runID: String = "", isDryRun: Bool = false, logicalTime: Date, startTime: Date, timeZone: TimeZone, parameters: JobParameters,
        store: any DocumentStore, policy: InvalidDocumentPolicy, progress: (@Sendable (Int) -> Void)? = nil, changes: ChangedDocuments? = nil,
        call: Call? = nil
    ) {
        self.changes = changes
        self.call = call
        self.jobName = jobName
        self.runID = runID
        self.isDryRun = isDryRun
        self.logicalTime = logicalTime
        self.startTime = startTime
        self.timeZone = timeZone
        self.parameters = parameters
        self.store = store
        self.policy = policy
        self.progress = progress
    }

    /// A Gregorian calendar in the job's zone, weeks starting Monday (ISO 8601).
    public var calendar: Calendar {
        var c = Calendar(identifier: .iso8601)
        c.timeZone = timeZone
        return c
    }

    /// Counts `n` more documents read and reports the total as progress.
    func countRead(_ n: Int) {
        let total = state.withLock { s in
            s.documentsRead += n
            return s.documentsRead
        }
        progress?(total)
    }

    // MARK: Results (for the runner)

    public var changeset: Changeset { state.withLock { $0.changeset } }
    /// What a callable run answers when it commits (``answer(_:)``); nil: `null`.
    public var result: JSONValue? { state.withLock { $0.result } }
    public var warnings: [String] { state.withLock { $0.warnings } }
    public var issues: [DocumentIssue] { state.withLock { $0.issues } }
    public var documentsRead: Int { state.withLock { $0.documentsRead } }
}
