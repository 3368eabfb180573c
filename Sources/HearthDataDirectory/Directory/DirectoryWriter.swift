package import HearthKit
package import HearthStore

/// Writes documents into a new data directory without the commit machinery (no journal, no
/// fsync): for `hearth seed` and test fixtures, never for data an app already uses.
/// Documents get `fileMode` and directories `dirMode`, as a commit gives new ones.
package final class DirectoryWriter {
    package let root: String
    private let ownership: FileOwnership
    private var made: Set<String> = []

    package init(root: String, ownership: FileOwnership = FileOwnership()) throws(FileIO.Failure) {
        self.root = root
        self.ownership = ownership
        try ownership.makeDirectories(root)
    }

    /// Writes `<root>/<collection>/<id>.json`, replacing a file of that name.
    package func put(_ collection: String, _ id: String, _ object: JSONObject) throws(FileIO.Failure) {
        let dir = root + "/" + collection
        if !made.contains(dir) {
            try ownership.makeDirectories(dir)
            made.insert(dir)
        }
        let target = FileOwnership.Target(uid: nil, gid: nil, mode: ownership.fileMode)
        try FileIO.writeAtomically(dir + "/" + id + ".json", JSONWriter.document(object), sync: false, ownership: target)
    }
}
