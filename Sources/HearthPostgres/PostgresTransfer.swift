import Foundation
import HearthKit
import HearthStore

/// `hearth data export` / `hearth data import` (docs/storage/postgres.md#moving-data): every
/// document between the database and a data directory, as the exact bytes of its file, so
/// export → import → export gives the same directory byte for byte.
package enum PostgresTransfer {
    /// Writes every document to `directory` (created; it must be empty) as
    /// `<collection>/<id>.json`; one consistent snapshot, streamed through a cursor. Returns
    /// the number of documents.
    package static func export(_ backend: PostgresBackend, to directory: String, progress: ((Int) -> Void)? = nil) throws -> Int {
        try FileIO.makeDirectories(directory)
        if let names = try FileIO.list(directory), !names.isEmpty {
            throw StoreError("\(directory) is not empty; export writes into an empty or new directory")
        }
        let connection = try backend.connect()
        var count = 0
        var made = Set<String>()
        try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            try connection.query("DECLARE hearth_export NO SCROLL CURSOR FOR SELECT collection, id, raw FROM documents ORDER BY collection, id")
            while true {
                let batch = try connection.query("FETCH 2000 FROM hearth_export")
                if batch.count == 0 { break }
                for i in 0..<batch.count {
                    guard let collection = batch[i, 0], let id = batch[i, 1], let raw = batch[i, 2] else { continue }
                    let dir = directory + "/" + collection
                    if !made.contains(dir) {
                        try FileIO.makeDirectories(dir)
                        made.insert(dir)
                    }
                    try write(dir + "/" + id + ".json", Array(raw.utf8))
                    count += 1
                }
                progress?(count)
            }
        }
        return count
    }

    /// Copies every document of the data directory `directory` into the database, in one
    /// transaction. Refuses a database that already holds documents unless `replace` (then
    /// they are deleted first). Returns the number of documents.
    package static func importDirectory(_ directory: String, into backend: PostgresBackend, replace: Bool, progress: ((Int) -> Void)? = nil) throws -> Int {
        let files = try documentFiles(in: directory)
        let connection = try backend.connect()
        return try connection.transaction {
            try connection.query("SELECT pg_advisory_xact_lock(\(PostgresBackend.commitLockKey))")
            if try connection.query("SELECT EXISTS (SELECT 1 FROM documents)")[0, 0] == "t" {
                guard replace else {
                    throw StoreError("\(backend.location) already holds documents; import into an empty database, or pass --replace to delete them first")
                }
                try connection.query("DELETE FROM documents")
            }
            var done = 0
            for chunk in PostgresBackend.chunks(files, size: 1000) {
                let rows = try chunk.map { file -> JSONValue in
                    let relative = file.collection + "/" + file.id + ".json"
                    guard let (bytes, _, tooLarge) = try FileIO.readFile(directory + "/" + relative, limit: DataDirectory.maxDocumentSize) else {
                        throw StoreError("\(relative) disappeared during the import")
                    }
                    if tooLarge { throw StoreError("\(relative) is larger than 1 MiB (1048576 bytes), the document limit; split it before importing") }
                    guard let text = String(bytes: bytes, encoding: .utf8), case .object? = try? JSONParser.parse(bytes) else {
                        throw StoreError("\(relative) is not a JSON object; fix or remove it (`hearth check` lists invalid documents), then import again")
                    }
                    return .object(JSONObject([("c", .string(file.collection)), ("i", .string(file.id)), ("r", .string(text))]))
                }
                try PostgresBackend.upsert(rows, connection)
                done += chunk.count
                progress?(done)
            }
            return done
        }
    }

    /// The documents of a data directory as the directory backend sees them: `*.json` files
    /// with valid ids in collection directories, subcollections under `<collection>/<id>/`;
    /// names starting with `.` (Hearth's `.hearth/`) are skipped.
    static func documentFiles(in root: String) throws -> [(collection: String, id: String)] {
        guard (try FileIO.statPath(root))?.isDirectory == true else {
            throw StoreError("\(root) is not a directory; name a data directory to import")
        }
        var out: [(String, String)] = []
        func isDirectory(_ path: String) -> Bool { (try? FileIO.statPath(path))??.isDirectory == true }
        func walk(_ collection: String) throws {
            let dir = root + "/" + collection
            for name in (try FileIO.list(dir) ?? []).sorted() where !name.hasPrefix(".") {
                if name.hasSuffix(".json"), DocumentPath.isValid(name: String(name.dropLast(5))), !isDirectory(dir + "/" + name) {
                    out.append((collection, String(name.dropLast(5))))
                } else if DocumentPath.isValid(name: name), isDirectory(dir + "/" + name) {
                    for sub in (try FileIO.list(dir + "/" + name) ?? []).sorted() where !sub.hasPrefix(".") && DocumentPath.isValid(name: sub) && isDirectory(dir + "/" + name + "/" + sub) {
                        try walk(collection + "/" + name + "/" + sub)
                    }
                }
            }
        }
        for name in (try FileIO.list(root) ?? []).sorted() where !name.hasPrefix(".") && DocumentPath.isValid(name: name) && isDirectory(root + "/" + name) {
            try walk(name)
        }
        return out
    }

    private static func write(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try FileIO.writeAll(fd, bytes, path: path)
    }
}
