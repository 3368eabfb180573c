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
    public subscript(field: String) -> JSONValue? { object[field] }
}
