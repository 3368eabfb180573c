package import HearthKit
/// How the scheduler and runner treat a job (`[defaults]`, overridable per job).
package struct JobPolicy: Sendable, Equatable {
    package enum Overlap: String, Sendable, CaseIterable { case skip, queue }
    package enum CatchUp: String, Sendable, CaseIterable { case none, latest, all }

    package var timeout: Duration = .seconds(600)
    /// Extra attempts after a failure.
    package var retries: Int = 2
    package var backoffMin: Duration = .seconds(10)
    package var backoffMax: Duration = .seconds(300)
    package var overlap: Overlap = .skip
    package var catchUp: CatchUp = .latest
    package var catchUpWindow: Duration = .seconds(86_400)
    package var jitter: Duration = .zero
    package var onInvalidDocument: InvalidDocumentPolicy = .skip
    /// After this many failed attempts in a row the daemon pauses the job and queues a
    /// `job.paused` event (docs/operations/monitoring.md#pauseafterfailures); nil: never.
    package var pauseAfterFailures: Int?

    package init() {}
}
