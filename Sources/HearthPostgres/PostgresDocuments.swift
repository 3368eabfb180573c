package import Foundation
package import HearthKit
import Synchronization

/// Reads documents over one connection (docs/storage/postgres.md#reads). With `caching`, the
/// first listing of a collection fetches its rows (id, text, version) in one streamed query
/// and later reads of its documents are served from them: a run that lists a collection and
/// reads every document makes one round trip, not one per document. Only a snapshot (one
/// REPEATABLE READ transaction) caches, so what it serves is what the database held then.
package final class PostgresDocuments: DocumentStore {
    let connection: PostgresConnection
    private let caching: Bool
    /// collection → id → (raw text, version); ids in order.
    private let cache = Mutex<[String: CachedCollection]>([:])

    struct CachedCollection: Sendable {
        var ids: [String]
        var rows: [String: (raw: String, version: Int64)]
    }

    init(connection: PostgresConnection, caching: Bool) {
        self.connection = connection
        self.caching = caching
    }

    package func documentIDs(in collection: String) throws(StoreError) -> [String] {
        try PostgresDocuments.validateCollection(collection)
        if caching {
            if let hit = cache.withLock({ $0[collection] }) { return hit.ids }
            let loaded = try fetchCollection(collection)
            cache.withLock { $0[collection] = loaded }
            return loaded.ids
        }
        do {
            return try connection.query("SELECT id FROM documents WHERE collection = $1 ORDER BY id", [collection]).values.compactMap { $0 }
        } catch { throw StoreError(error.description) }
    }

    package func read(_ path: DocumentPath) -> DocumentRead {
        let collection = path.collection
        if caching, let hit = cache.withLock({ $0[collection] }) {
            guard let row = hit.rows[path.id] else { return .missing(path) }
            return PostgresDocuments.decode(path, raw: row.raw, version: row.version)
        }
        do {
            let rows = try connection.query("SELECT raw, version FROM documents WHERE collection = $1 AND id = $2", [collection, path.id])
            guard rows.count == 1, let raw = rows[0, 0], let version = rows[0, 1].flatMap(Int64.init) else { return .missing(path) }
            return PostgresDocuments.decode(path, raw: raw, version: version)
        } catch {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "cannot read: \(error)"))
        }
    }

    package func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] {
        let ids = try documentIDs(in: collection)
        let base = collection.split(separator: "/").map(String.init)
        let paths = ids.map { DocumentPath(unchecked: base + [$0]) }
        return concurrentChunks(count: paths.count, chunkSize: 256) { range in range.map { self.read(paths[$0]) } }
    }

    package func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String] {
        let lo = PostgresDocuments.hourStamp(from)
        let hi = PostgresDocuments.hourStamp(to)
        var out: [String: String] = [:]
        for row in try ledgerRows(namespace: namespace) {
            let hour = String(row.file.prefix(11))
            guard hour >= lo, hour <= hi,
                let entries = (try? JSONParser.parse(Array(row.body.utf8)))?.objectValue?["entries"]?.objectValue
            else { continue }
            for (k, v) in entries { if let s = v.stringValue { out[k] = s } }
        }
        return out
    }

    package func ledgerFiles(namespace: String, before date: Date) throws -> [String] {
        let cutoff = PostgresDocuments.hourStamp(date)
        return try ledgerRows(namespace: namespace).filter { String($0.file.prefix(11)) < cutoff }.map(\.name)
    }

    /// The ledger's entries of a namespace in name order: (full name, file name, body).
    private func ledgerRows(namespace: String) throws -> [(name: String, file: String, body: String)] {
        let rows = try connection.query("SELECT name, body FROM ledger WHERE namespace = $1 ORDER BY name", [namespace])
        return rows.rows.compactMap { r in
            guard let name = r[0], let body = r[1] else { return nil }
            return (name, String(name.split(separator: "/").last ?? ""), body)
        }
    }

    /// Streams the collection's rows in id order (a cursor, 5,000 rows per fetch).
    private func fetchCollection(_ collection: String) throws(StoreError) -> CachedCollection {
        var out = CachedCollection(ids: [], rows: [:])
        do {
            try connection.query("DECLARE hearth_collection NO SCROLL CURSOR FOR SELECT id, raw, version FROM documents WHERE collection = $1 ORDER BY id", [collection])
            defer { _ = try? connection.query("CLOSE hearth_collection") }
            while true {
                let batch = try connection.query("FETCH 5000 FROM hearth_collection")
                if batch.count == 0 { break }
                for i in 0..<batch.count {
                    guard let id = batch[i, 0], let raw = batch[i, 1], let version = batch[i, 2].flatMap(Int64.init) else { continue }
                    out.ids.append(id)
                    out.rows[id] = (raw, version)
                }
            }
        } catch { throw StoreError(error.description) }
        return out
    }

    /// A row as the directory backend would read the same bytes: the version the commit
    /// check compares is the row's `version` (a database-wide sequence, never reused).
    static func decode(_ path: DocumentPath, raw: String, version: Int64) -> DocumentRead {
        let bytes = Array(raw.utf8)
        let v = DocumentVersion(size: bytes.count, mtimeSeconds: Int(version), mtimeNanoseconds: 0, hash: DocumentVersion.hash(bytes))
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: error.description))
        }
        guard case .object(let object) = value else {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "expected a JSON object, found \(value.typeName)"))
        }
        return .document(Document(path: path, object: object, version: v))
    }

    static func validateCollection(_ collection: String) throws(StoreError) {
        let parts = collection.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count % 2 == 1 else { throw StoreError("\(collection) is not a collection path") }
        for p in parts {
            do { try DocumentPath.validate(name: String(p)) } catch {
                throw StoreError("collection \(JSONWriter.quoted(collection)): \(error)")
            }
        }
    }

    /// `20261120T09` for 2026-11-20 09:xx UTC, as the ledger's file names start.
    static func hourStamp(_ date: Date) -> String {
        String(Timestamp.format(date).prefix(13).filter { $0 != "-" })
    }
}
