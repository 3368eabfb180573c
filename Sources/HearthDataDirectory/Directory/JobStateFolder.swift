import HearthKit
import HearthStore

/// A folder of the data directory's state directory holding one JSON file per job,
/// `.hearth/<name>/<job>.json`, each written atomically (temp file, fsync, rename): the
/// scheduler's state (``DirectorySchedulerState``) and paused jobs (``DirectoryPauses``).
struct JobStateFolder: Sendable {
    let directory: String
    /// The data directory: never recreated when it is gone.
    let root: String

    init(data: DataDirectory, name: String) {
        directory = data.stateDirectory + "/" + name
        root = data.root
    }

    func path(job: String) -> String { directory + "/\(job).json" }

    /// Writes `job`'s file atomically, making the folder when it is missing.
    func write(job: String, _ object: JSONObject) throws(FileIO.Failure) {
        try FileIO.makeDirectories(directory, within: root)
        try FileIO.writeAtomically(path(job: job), JSONWriter.document(object))
    }
}
