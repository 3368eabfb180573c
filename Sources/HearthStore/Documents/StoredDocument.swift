package import HearthKit

/// A document as every backend keeps it: JSON bytes of at most ``maxSize``, read back the same
/// way whether they come from a file or a database row.
package enum StoredDocument {
    /// Firestore's document size limit.
    package static let maxSize = 1 << 20

    /// A document's bytes as a document, or why they are not one; shared by every backend, so
    /// an invalid document reads the same from a file and from a database row.
    package static func parse(_ path: DocumentPath, bytes: [UInt8], version: DocumentVersion) -> DocumentRead {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: error.description))
        }
        guard case .object(let object) = value else {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "expected a JSON object, found \(value.typeName)"))
        }
        return .document(Document(path: path, object: object, version: version))
    }

    /// Throws when `collection` is not a collection path (`users`, `users/u1/badges`), naming it;
    /// the same check on every backend.
    package static func validateCollection(_ collection: String) throws(StoreError) {
        let parts = collection.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count % 2 == 1 else { throw StoreError("\(collection) is not a collection path") }
        for p in parts {
            do { try DocumentPath.validate(name: String(p)) } catch {
                throw StoreError("collection \(JSONWriter.quoted(collection)): \(error)")
            }
        }
    }
}
