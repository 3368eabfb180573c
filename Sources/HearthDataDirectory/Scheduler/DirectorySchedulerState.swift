import HearthKit
package import HearthStore

/// The data directory's scheduler state (``SchedulerState``): one file per job,
/// `.hearth/scheduler/<job>.json`, in ``SchedulerState/json``'s form.
package struct DirectorySchedulerState: Sendable {
    let folder: JobStateFolder

    package init(data: DataDirectory) {
        folder = JobStateFolder(data: data, name: "scheduler")
    }

    /// The job's state; nil when there is none or it cannot be read (then the daemon starts
    /// the job afresh from now).
    package func load(job: String) -> SchedulerState? {
        guard let bytes = try? FileIO.readSmallFile(folder.path(job: job)),
            case .object(let o)? = try? JSONParser.parse(bytes)
        else { return nil }
        return SchedulerState(json: o)
    }

    /// Writes the job's state atomically (temp file + fsync + rename).
    package func save(_ state: SchedulerState) throws {
        try folder.write(job: state.job, state.json)
    }
}
