/// Paused jobs (docs/operations/monitoring.md#pause-and-resume): written by `hearth pause` /
/// `hearth resume` and by the daemon (`pauseAfterFailures`); a running daemon reads them
/// about once a second, so ``pauses()`` must be cheap when nothing is paused.
package protocol PauseStore: Sendable {
    /// Every paused job, by name (empty: none).
    func pauses() throws -> [String: JobPause]

    /// Pauses `pause.job`, replacing an earlier pause of it (its note and time).
    func setPause(_ pause: JobPause) throws

    /// Resumes `job`; nothing happens when it is not paused.
    func clearPause(job: String) throws
}
