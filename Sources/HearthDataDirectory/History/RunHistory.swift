import HearthKit
package import HearthStore
/// Run records on disk: writing, pruning to `historyLimit`, listing.
package struct RunHistory: Sendable {
    package let data: DataDirectory
    package let limit: Int

    package init(data: DataDirectory, limit: Int) {
        self.data = data
        self.limit = limit
    }

    var directory: String { data.stateDirectory + "/runs" }

    /// Writes a record on its own (records of committed runs go into the commit instead).
    package func write(_ record: RunRecord) throws {
        let path = data.root + "/" + record.relativePath
        try FileIO.makeDirectories(FileIO.directoryName(path), within: data.root)
        try FileIO.writeAtomically(path, JSONWriter.document(record.json))
    }

    /// Deletes a job's oldest records beyond the limit.
    package func prune(job: String) throws {
        let dir = directory + "/" + job
        guard let names = try FileIO.list(dir)?.filter({ $0.hasSuffix(".json") && !$0.hasPrefix(".") }).sorted(),
            names.count > limit
        else { return }
        for name in names.prefix(names.count - limit) { try FileIO.remove(dir + "/" + name) }
    }

    /// Records, the one that ended last first (docs/runs-and-plans.md#runs).
    package func list(job: String? = nil, status: RunRecord.Status? = nil, limit: Int? = nil) throws -> [RunRecord] {
        let jobs: [String]
        if let job { jobs = [job] } else { jobs = (try FileIO.list(directory) ?? []).filter { !$0.hasPrefix(".") } }
        var out: [RunRecord] = []
        for j in jobs {
            for name in try FileIO.list(directory + "/" + j) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
                guard let bytes = try FileIO.readSmallFile(directory + "/" + j + "/" + name),
                    case .object(let o)? = try? JSONParser.parse(bytes), let r = RunRecord(json: o)
                else { continue }
                if let status, r.status != status { continue }
                out.append(r)
            }
        }
        out.sort { ($0.end, $0.runID) > ($1.end, $1.runID) }
        if let limit { return Array(out.prefix(limit)) }
        return out
    }

    /// The record `id` of whichever job has it: one file looked for per job.
    package func record(id: String) throws -> RunRecord? {
        // A run id is a file name: never a path.
        guard !id.isEmpty, !id.hasPrefix("."), !id.contains("/") else { return nil }
        for job in (try FileIO.list(directory) ?? []) where !job.hasPrefix(".") {
            guard let bytes = try FileIO.readSmallFile(directory + "/" + job + "/" + id + ".json") else { continue }
            guard case .object(let o)? = try? JSONParser.parse(bytes), let r = RunRecord(json: o), r.runID == id else { continue }
            return r
        }
        return nil
    }

    /// The newest record of a job, if any.
    package func last(job: String) throws -> RunRecord? {
        try list(job: job, limit: 1).first
    }
}
