package import HearthKit

/// Writes documents into a new data directory without the commit machinery (no journal, no
/// fsync): for `hearth seed` and test fixtures, never for data an app already uses.
package final class DirectoryWriter {
    package let root: String
    private var made: Set<String> = []

    package init(root: String) throws(FileIO.Failure) {
        self.root = root
        try FileIO.makeDirectories(root)
    }

    /// Writes `<root>/<collection>/<id>.json`, replacing a file of that name.
    package func put(_ collection: String, _ id: String, _ object: JSONObject) throws(FileIO.Failure) {
        let dir = root + "/" + collection
        if !made.contains(dir) {
            try FileIO.makeDirectories(dir)
            made.insert(dir)
        }
        try FileIO.writeAtomically(dir + "/" + id + ".json", JSONWriter.document(object), sync: false)
    }
}
