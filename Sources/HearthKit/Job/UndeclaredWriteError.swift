/// A job wrote a document outside the collections its descriptor declares in `writes:`. The
/// run fails and nothing is committed: the declaration is what operators read (`hearth list`,
/// the docs) to know what a job may change.
public struct UndeclaredWriteError: Error, Sendable, CustomStringConvertible {
    public var job: String
    public var path: DocumentPath
    public var declared: [String]

    public var description: String {
        let collection = path.collection
        let list = declared.map { JSONWriter.quoted($0) }.joined(separator: ", ")
        return "job \(job) wrote \(path.relativeFile), but \(JSONWriter.quoted(collection)) is not in its declared writes [\(list)]; "
            + "add \(JSONWriter.quoted(JobDescriptor.writePattern(of: path))) to `writes:` in the job's JobDescriptor, or stop writing there. Nothing was committed."
    }
}

extension JobDescriptor {
    /// The `writes:` entry that covers `path`: its collection path with document ids as `*`
    /// (`users` for `users/u1`, `users/*/badges` for `users/u1/badges/b1`).
    public static func writePattern(of path: DocumentPath) -> String {
        let c = path.components.dropLast()
        return c.enumerated().map { $0.offset % 2 == 1 ? "*" : $0.element }.joined(separator: "/")
    }

    /// Throws for the first change in `changeset` outside the declared `writes:`.
    public func checkDeclaredWrites(_ changeset: Changeset) throws(UndeclaredWriteError) {
        let allowed = Set(writes)
        for e in changeset.entries where !allowed.contains(Self.writePattern(of: e.path)) {
            throw UndeclaredWriteError(job: name, path: e.path, declared: writes)
        }
    }
}
