/// Why a document is invalid input (docs/data-directory.md#invalid-documents). Its description is the message users see:
/// `users/u42.json: field "points": expected integer, found string "12"`.
public struct DocumentIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// Path relative to the data directory, with `.json`.
    public var file: String
    public var field: String?
    public var message: String

    public init(file: String, field: String? = nil, message: String) {
        self.file = file
        self.field = field
        self.message = message
    }

    public var description: String {
        if let field { return "\(file): field \(JSONWriter.quoted(field)): \(message)" }
        return "\(file): \(message)"
    }
}

/// A field of the wrong type, thrown by ``Document``'s typed accessors; the caller adds the file.
public struct FieldError: Error, Sendable {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public init(field: String, expected: String, found: JSONValue) {
        self.init(field: field, message: "expected \(expected), found \(found.foundDescription)")
    }

    public func issue(in path: DocumentPath) -> DocumentIssue {
        DocumentIssue(file: path.relativeFile, field: field, message: message)
    }
}
