import HearthKit
package import HearthStore

/// The data directory's paused jobs: one file per job under `.hearth/paused/`, written
/// atomically (temp file, fsync, rename); resuming removes it.
package struct DirectoryPauses: Sendable {
    let folder: JobStateFolder

    package init(data: DataDirectory) {
        folder = JobStateFolder(data: data, name: "paused")
    }

    /// Every paused job; a file that cannot be parsed is skipped (the job counts as running).
    package func load() throws(FileIO.Failure) -> [String: JobPause] {
        var out: [String: JobPause] = [:]
        for name in try FileIO.list(folder.directory) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let bytes = try FileIO.readSmallFile(folder.directory + "/" + name),
                case .object(let o)? = try? JSONParser.parse(bytes), let pause = JobPause(json: o)
            else { continue }
            out[pause.job] = pause
        }
        return out
    }

    package func save(_ pause: JobPause) throws(FileIO.Failure) {
        try folder.write(job: pause.job, pause.json)
    }

    package func remove(job: String) throws(FileIO.Failure) {
        try FileIO.remove(folder.path(job: job))  // already gone: nothing to do
    }
}
