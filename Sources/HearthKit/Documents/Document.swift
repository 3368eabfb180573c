/// A document as read from the data directory.
public struct Document: Sendable {
    public let path: DocumentPath
    public var object: JSONObject
    public let version: DocumentVersion

    public init(path: DocumentPath, object: JSONObject, version: DocumentVersion) {
        self.path = path
        self.object = object
        self.version = version
    }

    public var id: String { path.id }

    /// The document's path and version with no content: what a job keeps of a document it reads
    /// again later (``JobContext/reread(_:chunkSize:_:)``) or only depends on
    /// (``JobContext/depend(on:)``), so that a large collection is never held whole.
    public var pathAndVersion: Document { Document(path: path, object: JSONObject(), version: version) }
    public subscript(field: String) -> JSONValue? { object[field] }
}
