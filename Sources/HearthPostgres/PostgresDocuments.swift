package import Foundation
package import HearthKit
import HearthStore
import Synchronization

/// Reads documents over one connection (docs/storage/postgres.md#reads). In a snapshot (one
/// REPEATABLE READ transaction, `PostgresSnapshot`) a whole collection comes in one `COPY`
/// (``stream(_:_:)``), a chunk at a time for the caller to decode on all cores, so a run holds
/// the text of a few chunks, never a whole collection's, as the data directory holds a few
/// chunks of file bytes. Documents asked for by path are fetched by the batch `read(_ paths:)`
/// one chunk at a time (a range scan, or one `= ANY` query per collection in the chunk).
///
/// In a snapshot, single reads read ahead (`readingAhead`): a job that looks documents up one at
/// a time (streak-reset: the user of each streak) would otherwise pay a round trip per
/// document. A single read that its collection's window does not cover fetches the rows from
/// its id on in id order (`id >= $2 ORDER BY id LIMIT size`); the reads the window covers are
/// answered from it (present, or missing: nothing in the snapshot can change). The window
/// doubles, up to `maxReadAhead` rows, while at least a quarter of it was asked for, and halves
/// otherwise, so lookups in id order cost one statement per few thousand documents and lookups
/// in any order about one each, as before.
package final class PostgresDocuments: DocumentStore {
    let connection: PostgresConnection
    /// Whether `connection` is a run's snapshot (`PostgresSnapshot`), where nothing read can
    /// change: single reads read ahead, and a collection can be streamed.
    private let inSnapshot: Bool
    private let windows = Mutex<[String: ReadAheadWindow]>([:])

    init(connection: PostgresConnection, inSnapshot: Bool = false) {
        self.connection = connection
        self.inSnapshot = inSnapshot
    }

    static let maxReadAhead = 4096

    package func documentIDs(in collection: String) throws(StoreError) -> [String] {
        try StoredDocument.validateCollection(collection)
        do {
            return try connection.query("SELECT id FROM documents WHERE collection = $1 ORDER BY id", [collection]).values.compactMap { $0 }
        } catch { throw StoreError(error.description) }
    }

    package func read(_ path: DocumentPath) -> DocumentRead {
        if inSnapshot { return readingAhead(path) }
        do {
            let rows = try connection.query("SELECT raw, version FROM documents WHERE collection = $1 AND id = $2", [path.collection, path.id])
            guard rows.count == 1, let raw = rows[0, 0], let version = rows[0, 1].flatMap(Int64.init) else { return .missing(path) }
            return PostgresDocuments.decode(path, raw: raw, version: version)
        } catch {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "cannot read: \(error)"))
        }
    }

    /// A single read in a snapshot: from the collection's window, else from a new one.
    private func readingAhead(_ path: DocumentPath) -> DocumentRead {
        let c = path.collection
        let id = path.id
        let found: Result<(raw: String, version: Int64)?, PostgresError> = windows.withLock { windows in
            if windows[c]?.covers(id) == true {
                windows[c]!.used += 1
                return .success(windows[c]!.rows[id])
            }
            let size = windows[c].map { $0.used * 4 > $0.size ? min($0.size * 2, PostgresDocuments.maxReadAhead) : max(1, $0.size / 2) } ?? 1
            do throws(PostgresError) {
                let rows = try connection.query(
                    "SELECT id, raw, version FROM documents WHERE collection = $1 AND id >= $2 ORDER BY id LIMIT $3", [c, id, String(size)])
                var window = ReadAheadWindow(first: id, last: nil, size: size)
                window.rows.reserveCapacity(rows.count)
                for i in 0..<rows.count {
                    guard let rowID = rows[i, 0], let raw = rows[i, 1], let version = rows[i, 2].flatMap(Int64.init) else { continue }
                    window.rows[rowID] = (raw, version)
                    if rows.count == size { window.last = rowID }   // ascending: the last one stays
                }
                windows[c] = window
                return .success(window.rows[id])
            } catch {
                windows[c] = nil
                return .failure(error)
            }
        }
        switch found {
        case .success(let row?): return PostgresDocuments.decode(path, raw: row.raw, version: row.version)
        case .success(nil): return .missing(path)
        case .failure(let error): return .invalid(path, DocumentIssue(file: path.relativeFile, message: "cannot read: \(error)"))
        }
    }

    /// The documents at `paths`, in order. Per collection among them: ids in ascending byte
    /// order (a chunk of the collection's listing) are first fetched with one range scan
    /// (`id BETWEEN first AND last … LIMIT count`), which returns exactly them when they are
    /// consecutive in the listing; whatever that did not return, or every id when they are not
    /// ascending, with `id = ANY($2)`. The rows are kept only until this chunk is decoded.
    package func read(_ paths: ArraySlice<DocumentPath>) -> [DocumentRead] {
        if paths.count <= 1 { return paths.map { read($0) } }
        var ids: [String: [String]] = [:]   // collection → ids asked for, in first-seen order
        var order: [String] = []
        for path in paths {
            let c = path.collection
            if ids[c] == nil { order.append(c) }
            ids[c, default: []].append(path.id)
        }
        var found: [String: [String: (raw: String, version: Int64)]] = [:]
        var failed: [String: String] = [:]
        for c in order {
            do {
                found[c] = try fetch(c, ids: ids[c] ?? [])
            } catch { failed[c] = error.description }
        }
        return paths.map { path in
            let c = path.collection
            if let message = failed[c] {
                return .invalid(path, DocumentIssue(file: path.relativeFile, message: "cannot read: \(message)"))
            }
            guard let row = found[c]?[path.id] else { return .missing(path) }
            return PostgresDocuments.decode(path, raw: row.raw, version: row.version)
        }
    }

    /// The rows of `ids` in `collection` that exist, by id.
    private func fetch(_ collection: String, ids: [String]) throws(PostgresError) -> [String: (raw: String, version: Int64)] {
        var byID: [String: (raw: String, version: Int64)] = [:]
        byID.reserveCapacity(ids.count)
        func keep(_ rows: PostgresRows) {
            for i in 0..<rows.count {
                guard let id = rows[i, 0], let raw = rows[i, 1], let version = rows[i, 2].flatMap(Int64.init) else { continue }
                byID[id] = (raw, version)
            }
        }
        var rest = ids
        if ids.count >= 16, let first = ids.first, let last = ids.last, PostgresDocuments.ascending(ids) {
            // `COLLATE "C"` orders ids by their bytes, as `ascending` compares them.
            keep(try connection.query(
                "SELECT id, raw, version FROM documents WHERE collection = $1 AND id >= $2 AND id <= $3 ORDER BY id LIMIT $4",
                [collection, first, last, String(ids.count)]))
            rest = ids.filter { byID[$0] == nil }
        }
        if !rest.isEmpty {
            keep(try connection.query(
                "SELECT id, raw, version FROM documents WHERE collection = $1 AND id = ANY($2::text[])",
                [collection, PostgresDocuments.textArray(rest)]))
        }
        return byID
    }

    /// The rows of `collection` that meet `filter` or are not JSON objects, from the `data`
    /// column (the document as `jsonb`), by keyset pages of `searchPage` rows in id order: one
    /// walk of the primary key, one page of text in memory at a time
    /// (docs/storage/reject-memos.md#filters).
    package func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int? {
        try StoredDocument.validateCollection(collection)
        let (sql, parameters) = PostgresDocuments.searchStatement(filter)
        let base = collection.split(separator: "/").map(String.init)
        var after = ""   // below every id: ids are 1 to 200 bytes
        var total = 0
        while true {
            let rows = try connection.query(sql, [collection, after, String(PostgresDocuments.searchPage)] + parameters)
            var reads: [DocumentRead] = []
            reads.reserveCapacity(rows.count)
            for i in 0..<rows.count {
                guard let id = rows[i, 0], let raw = rows[i, 1], let version = rows[i, 2].flatMap(Int64.init) else { continue }
                after = id
                reads.append(PostgresDocuments.decode(DocumentPath(unchecked: base + [id]), raw: raw, version: version))
            }
            total += reads.count
            try body(reads)
            if rows.count < PostgresDocuments.searchPage { return total }
        }
    }

    static let searchPage = 4096

    /// A whole collection in one statement, in a snapshot: `COPY (SELECT id, raw, version …
    /// ORDER BY id) TO STDOUT (FORMAT binary)`. The server sends the rows as fast as this thread
    /// takes them, with no listing of ids first and no statement per chunk, and `body` gets them
    /// `streamChunk` at a time, to be decoded on other threads while the rest arrives
    /// (docs/storage/postgres.md#reads). Outside a snapshot, nil: the statement could not turn
    /// sequential scans off, and a large collection would be sorted whole.
    package func stream(_ collection: String, _ body: (@escaping @Sendable () -> [DocumentRead]) throws -> Void) throws -> Int? {
        guard inSnapshot else { return nil }
        try StoredDocument.validateCollection(collection)
        let base = collection.split(separator: "/").map(String.init)
        let sql = "COPY (SELECT id, raw, version FROM documents WHERE collection = \(PostgresDocuments.literal(collection)) ORDER BY id) TO STDOUT (FORMAT binary)"
        var reader = PostgresCopyReader()
        var chunk: [PostgresCopyReader.Row] = []
        var total = 0
        func hand() throws {
            let rows = chunk
            chunk = []
            total += rows.count
            try body { rows.map { PostgresDocuments.decode(DocumentPath(unchecked: base + [$0.id]), bytes: $0.raw, version: $0.version) } }
        }
        _ = try connection.copyOut(sql) { message in
            try reader.read(message) { row in
                chunk.append(row)
                if chunk.count == PostgresDocuments.streamChunk { try hand() }
            }
        }
        guard reader.ended else { throw StoreError("PostgreSQL: the COPY of \(collection) ended without its last row marker") }
        if !chunk.isEmpty { try hand() }
        return total
    }

    static let streamChunk = 256

    /// `text` as an SQL string literal (`E'…'`, with `\` and `'` doubled), for a statement
    /// that takes no parameters (`COPY`). Collection paths are checked names; this is belt and braces.
    static func literal(_ text: String) -> String {
        "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The statement of one page of ``search(_:matching:_:)``: `$1` the collection, `$2` the
    /// last id of the page before, `$3` the page size, the filter's values from `$4`.
    ///
    /// The rows that meet the filter and the non-objects are two branches of a `UNION ALL`,
    /// each able to use its own index (with the two as one `OR`, the planner can only walk the
    /// collection's primary key).
    /// - A `.oneOf` picks a few rows by a field that may have an index
    ///   (docs/storage/field-indexes.md, migration 5): its branch finds them by value and sorts
    ///   the few it finds.
    /// - Other filters are the scans of jobs that keep a reject memo on a data directory. Each
    ///   branch is a page of its own in id order (`ORDER BY id LIMIT $3`), so it goes by a
    ///   partial index whose predicate is the filter (migration 6), else walks the primary key
    ///   and stops once the page is full; the two pages merge.
    package static func searchStatement(_ filter: ScanFilter) -> (sql: String, parameters: [String]) {
        let (condition, parameters) = whereClause(filter, firstParameter: 4)
        if filter.oneOf != nil {
            return ("SELECT id, raw, version FROM documents WHERE collection = $1 AND id > $2 AND \(condition) "
                + "UNION ALL SELECT id, raw, version FROM documents WHERE collection = $1 AND id > $2 AND jsonb_typeof(data) <> 'object' "
                + "ORDER BY id LIMIT $3", parameters)
        }
        return ("(SELECT id, raw, version FROM documents WHERE collection = $1 AND id > $2 AND \(condition) ORDER BY id LIMIT $3) "
            + "UNION ALL (SELECT id, raw, version FROM documents WHERE collection = $1 AND id > $2 AND jsonb_typeof(data) <> 'object' ORDER BY id LIMIT $3) "
            + "ORDER BY id LIMIT $3", parameters)
    }

    /// `filter` as SQL over the `data` column, its values as parameters from `$firstParameter`.
    static func whereClause(_ filter: ScanFilter, firstParameter: Int) -> (sql: String, parameters: [String]) {
        var parts: [String] = []
        var parameters: [String] = []
        for condition in filter.conditions {
            let n = firstParameter + parameters.count
            switch condition {
            case .equals(let field, let value):
                // jsonb equality with a JSON string: the number 5 is not the string "5". The
                // value goes as JSON text (`"pending"`), so the planned statement's constant is
                // the one in an index's predicate (migration 6).
                parts.append("data -> $\(n)::text = $\(n + 1)::jsonb")
                parameters += [field, JSONWriter.quoted(value)]
            case .absentOrNull(let field):
                parts.append("coalesce(data -> $\(n)::text, 'null'::jsonb) = 'null'::jsonb")
                parameters.append(field)
            case .oneOf(let field, let values):
                // `->>` gives the text of a number too: the type check keeps strings only. The
                // `->>` comparison is what the field indexes of migration 4 index (the statement
                // is planned with its parameters' values, so `$n` is the field's name then).
                parts.append("(data ->> $\(n)::text = ANY($\(n + 1)::text[]) AND jsonb_typeof(data -> $\(n)::text) = 'string')")
                parameters += [field, PostgresDocuments.textArray(values.sorted())]
            }
        }
        return (parts.isEmpty ? "true" : parts.joined(separator: " AND "), parameters)
    }

    /// Whether `ids` are strictly ascending in byte order (UTF-8), the order of `COLLATE "C"`.
    static func ascending(_ ids: [String]) -> Bool {
        for i in ids.indices.dropFirst() where !ids[i - 1].utf8.lexicographicallyPrecedes(ids[i].utf8) { return false }
        return true
    }

    package func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] {
        let ids = try documentIDs(in: collection)
        return concurrentChunks(count: ids.count, chunkSize: 256) { range in
            self.read(ArraySlice(DocumentPath.paths(in: collection, ids: ids[range])))
        }
    }

    /// `values` as a PostgreSQL array literal of text (`{"a","b"}`), each element quoted with
    /// `"` and `\` escaped, for a `$n::text[]` parameter.
    static func textArray(_ values: [String]) -> String {
        var out = "{"
        for (i, v) in values.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for ch in v.unicodeScalars {
                if ch == "\"" || ch == "\\" { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            out += "\""
        }
        return out + "}"
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

    /// A row as the directory backend would read the same bytes: the version the commit
    /// check compares is the row's `version` (a database-wide sequence, never reused).
    static func decode(_ path: DocumentPath, raw: String, version: Int64) -> DocumentRead {
        decode(path, bytes: Array(raw.utf8), version: version)
    }

    static func decode(_ path: DocumentPath, bytes: [UInt8], version: Int64) -> DocumentRead {
        let v = DocumentVersion(size: bytes.count, mtimeSeconds: Int(version), mtimeNanoseconds: 0, hash: DocumentVersion.hash(bytes))
        return StoredDocument.parse(path, bytes: bytes, version: v)
    }

    /// `20261120T09` for 2026-11-20 09:xx UTC, as the ledger's file names start.
    static func hourStamp(_ date: Date) -> String {
        String(Timestamp.format(date).prefix(13).filter { $0 != "-" })
    }
}

/// The rows a snapshot's single read fetched ahead in one collection: every id from `first`
/// through `last` (to the collection's end when nil) that exists, as `rows`.
private struct ReadAheadWindow {
    var first: String
    var last: String?
    var rows: [String: (raw: String, version: Int64)] = [:]
    /// The rows asked for (a full page has this many).
    var size: Int
    /// The reads this window answered, the one that fetched it included.
    var used = 1

    /// Whether `first ≤ id ≤ last` in byte order, the order of `COLLATE "C"`.
    func covers(_ id: String) -> Bool {
        if id.utf8.lexicographicallyPrecedes(first.utf8) { return false }
        guard let last else { return true }
        return !last.utf8.lexicographicallyPrecedes(id.utf8)
    }
}
