import HearthKit

/// The data directory's paused jobs: one file per job under `.hearth/paused/`, written
/// atomically (temp file, fsync, rename); resuming removes it.
package struct PauseStore: Sendable {
    package let directory: String
    /// The data directory: never recreated when it is gone.
    let root: String

    package init(data: DataDirectory) {
        directory = data.stateDirectory + "/paused"
        root = data.root
    }

    package func path(job: String) -> String { directory + "/\(job).json" }

    /// Every paused job; a file that cannot be parsed is skipped (the job counts as running).
    package func load() throws(FileIO.Failure) -> [String: JobPause] {
        var out: [String: JobPause] = [:]
        for name in try FileIO.list(directory) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let bytes = try FileIO.readSmallFile(directory + "/" + name),
                case .object(let o)? = try? JSONParser.parse(bytes), let pause = JobPause(json: o)
            else { continue }
            out[pause.job] = pause
        }
        return out
    }

    package func save(_ pause: JobPause) throws(FileIO.Failure) {
        try FileIO.makeDirectories(directory, within: root)
        try FileIO.writeAtomically(path(job: pause.job), JSONWriter.document(pause.json))
    }

    package func remove(job: String) throws(FileIO.Failure) {
        try FileIO.remove(path(job: job))  // already gone: nothing to do
    }
}
