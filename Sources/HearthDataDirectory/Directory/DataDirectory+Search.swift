package import HearthKit
import HearthStore

extension DataDirectory {
    /// A filter with a `.oneOf` condition on a top-level collection this process watches,
    /// answered from the collection's field index (``DirectoryFieldIndexes``,
    /// docs/storage/field-indexes.md): the documents that meet it and the files that are not
    /// JSON objects, in id order, in one chunk; returns how many documents were read. Nil — the
    /// caller reads the collection — for any other filter, a collection nobody here watches, or
    /// while another search builds the index.
    package func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int? {
        guard let (field, values) = filter.oneOf, !collection.contains("/") else { return nil }
        try StoredDocument.validateCollection(collection)
        let data = self
        let found = try fieldIndexes.search(
            collection, field: field, values: values,
            list: { () throws(StoreError) in try data.documentIDs(in: collection) },
            read: { paths in data.read(paths) })
        guard let found else { return nil }
        try body(found.reads.filter { read in
            if case .document(let d) = read { filter.matches(d) } else { true }
        })
        return found.read
    }
}
