/// Where a document lives: `collection/docId`, or deeper for subcollections
/// (`users/u1/badges/b1`). Every component obeys the id rules of docs/data-directory.md#documents.
public struct DocumentPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Alternating collection and document names; always an even, non-zero count.
    public let components: [String]

    /// Validates each name; throws ``DocumentPathError`` naming the bad component.
    public init(_ collection: String, _ id: String) throws(DocumentPathError) {
        try self.init(components: [collection, id])
    }

    public init(components: [String]) throws(DocumentPathError) {
        guard components.count >= 2, components.count % 2 == 0 else {
            throw DocumentPathError(name: components.joined(separator: "/"), reason: "a document path needs a collection and an id")
        }
        for c in components { try DocumentPath.validate(name: c) }
        self.components = components
    }

    /// Parses `users/u1` or `users/u1.json`.
    public init(parsing text: String) throws(DocumentPathError) {
        var t = text
        if t.hasSuffix(".json") { t.removeLast(5) }
        try self.init(components: t.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
    }

    package init(unchecked components: [String]) { self.components = components }

    /// The paths of `ids` in `collection`, unchecked: the names come from the store's own
    /// listing. Callers make them a chunk of a listing at a time: a path is ~80 bytes on the
    /// heap, and `transactions` has a million at 100,000 users (docs/performance.md#peak-memory).
    package static func paths(in collection: String, ids: some Collection<String>) -> [DocumentPath] {
        let base = collection.split(separator: "/").map(String.init)
        return ids.map { DocumentPath(unchecked: base + [$0]) }
    }

    public var id: String { components[components.count - 1] }
    public var collection: String { components.dropLast().joined(separator: "/") }
    public var description: String { components.joined(separator: "/") }
    /// Path relative to the data directory, with the `.json` extension.
    public var relativeFile: String { description + ".json" }

    public static func < (a: DocumentPath, b: DocumentPath) -> Bool { a.description < b.description }

    /// The id rules: 1–200 bytes of UTF-8, no `/`, `\`, NUL or control characters, not starting with `.`.
    public static func validate(name: String) throws(DocumentPathError) {
        let bytes = name.utf8.count
        if bytes == 0 { throw DocumentPathError(name: name, reason: "names must not be empty") }
        if bytes > 200 { throw DocumentPathError(name: name, reason: "names are at most 200 bytes (this one is \(bytes))") }
        if name.hasPrefix(".") { throw DocumentPathError(name: name, reason: "names must not start with \".\"") }
        for s in name.unicodeScalars {
            if s == "/" || s == "\\" { throw DocumentPathError(name: name, reason: "names must not contain \"/\" or \"\\\"") }
            if s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) {
                throw DocumentPathError(name: name, reason: "names must not contain NUL or control characters")
            }
        }
    }

    public static func isValid(name: String) -> Bool {
        do { try validate(name: name); return true } catch { return false }
    }
}

/// A collection name or document id that breaks the id rules.
public struct DocumentPathError: Error, Sendable, CustomStringConvertible {
    public var name: String
    public var reason: String
    public var description: String { "invalid document id \(JSONWriter.quoted(name)): \(reason)" }
}
