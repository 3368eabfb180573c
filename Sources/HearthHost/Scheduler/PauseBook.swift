import HearthStore

/// The paused jobs as the daemon last knew them (docs/operations/monitoring.md#pause-and-resume),
/// and the task that reads them again from the backend every ``pollInterval``.
struct PauseBook: Sendable {
    /// How often the paused jobs are read from the backend.
    let pollInterval: Duration
    private(set) var byJob: [String: JobPause] = [:]
    /// Bumped when this daemon pauses or resumes a job itself: a reading started before may
    /// predate the daemon's own write, and is not applied (see ``read(_:generation:)``).
    private(set) var generation = 0
    var watcher: Task<Void, Never>?

    init(pollInterval: Duration) {
        self.pollInterval = pollInterval
    }

    subscript(job: String) -> JobPause? { byJob[job] }

    /// The pauses read at start.
    mutating func loaded(_ pauses: [String: JobPause]) {
        byJob = pauses
    }

    /// A reading of the backend started at `generation`: the pauses before it, nil when it is
    /// not applied (stale, or nothing changed).
    mutating func read(_ pauses: [String: JobPause], generation: Int) -> [String: JobPause]? {
        guard generation == self.generation, pauses != byJob else { return nil }
        defer { byJob = pauses }
        return byJob
    }

    /// This daemon paused `pause.job`; false when it was already paused (its pause is replaced).
    mutating func set(_ pause: JobPause) -> Bool {
        generation += 1
        return byJob.updateValue(pause, forKey: pause.job) == nil
    }

    /// This daemon resumed `job`; false when it was not paused.
    mutating func clear(_ job: String) -> Bool {
        generation += 1
        return byJob.removeValue(forKey: job) != nil
    }
}
