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
    ///
    /// The rows go in with one `COPY … FROM STDIN`: files are read and checked on ``readThreads``
    /// threads a group at a time, each group sent as COPY text while the next is read; the versions are a
    /// block taken from the `document_versions` sequence under the commit lock (every other
    /// writer takes a version under that lock too). The first file that is not a JSON object, in
    /// listing order, stops the import and nothing is copied.
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
            if files.isEmpty { return 0 }
            // Versions first...first + count - 1, taken from the sequence as nextval would.
            guard let first = try connection.query("SELECT nextval('document_versions')")[0, 0].flatMap(Int64.init) else {
                throw StoreError("PostgreSQL: nextval('document_versions') returned no number")
            }
            if files.count > 1 {
                try connection.query("SELECT setval('document_versions', $1)", [String(first + Int64(files.count) - 1)])
            }
            var done = 0
            var groups = stride(from: 0, to: files.count, by: importGroup).makeIterator()
            let copied = try connection.copyIn("COPY documents (collection, id, raw, version) FROM STDIN") { () throws -> [UInt8]? in
                if done > 0 { progress?(done) }
                guard let start = groups.next() else { return nil }
                let range = start..<min(files.count, start + importGroup)
                let rows = try copyRows(directory, files, range, firstVersion: first)
                done = range.upperBound
                return rows
            }
            progress?(done)
            guard copied == files.count else {
                throw StoreError("PostgreSQL: COPY stored \(copied) of \(files.count) documents")
            }
            return copied
        }
    }

    /// Files read, checked and turned into COPY text per group.
    static let importGroup = 8192

    /// The COPY text rows (`collection`, `id`, `raw`, `version`, tab-separated) of `files[range]`,
    /// read and checked on all cores; document `i` takes version `firstVersion + i`. Throws for
    /// the first file in `range` that cannot be imported.
    private static func copyRows(
        _ directory: String, _ files: [(collection: String, id: String)], _ range: Range<Int>, firstVersion: Int64
    ) throws -> [UInt8] {
        let parts = concurrentChunks(count: range.count, chunkSize: 64, threads: readThreads) { chunk -> [Result<[UInt8], any Error>] in
            var out: [UInt8] = []
            // Files are opened relative to their collection's directory, opened once per run of
            // the same collection: no path walk per file.
            var open: (collection: String, fd: Int32)?
            defer { if let open { close(open.fd) } }
            for i in chunk {
                let index = range.lowerBound + i
                let file = files[index]
                do {
                    if open?.collection != file.collection {
                        if let o = open { close(o.fd) }
                        guard let fd = FileIO.openDirectory(directory + "/" + file.collection) else {
                            throw StoreError("\(file.collection)/ disappeared during the import")
                        }
                        open = (file.collection, fd)
                    }
                    let bytes = try documentBytes(open!.fd, file.collection, file.id)
                    appendCopyText(file.collection, to: &out)
                    out.append(0x09)
                    appendCopyText(file.id, to: &out)
                    out.append(0x09)
                    appendCopyText(bytes, to: &out)
                    out.append(0x09)
                    out += Array(String(firstVersion + Int64(index)).utf8)
                    out.append(0x0A)
                } catch {
                    return [.failure(error)]
                }
            }
            return [.success(out)]
        }
        var rows: [UInt8] = []
        for part in parts { rows += try part.get() }
        return rows
    }

    /// Threads reading files: many more than cores, since a file out of the page cache waits on
    /// the disk, and the disk serves more reads at once than two cores would ask for
    /// (docs/performance.md#the-postgresql-backend-beside-the-data-directory: the seed's
    /// 2.3 million files read cold in 43.5 s with 8 threads, 28.1 s with 32). Each takes 64 files
    /// at a time, so a group's last reads are spread over the threads too.
    static let readThreads = max(32, ProcessInfo.processInfo.activeProcessorCount)

    /// The bytes of the document file `relative`, checked as the import requires: at most
    /// 1 MiB, UTF-8, a JSON object.
    private static func documentBytes(_ directory: Int32, _ collection: String, _ id: String) throws -> [UInt8] {
        let relative = collection + "/" + id + ".json"
        guard let (bytes, _, tooLarge) = try FileIO.readFile(in: directory, id + ".json", path: relative, limit: StoredDocument.maxSize, followSymlink: true) else {
            throw StoreError("\(relative) disappeared during the import")
        }
        if tooLarge { throw StoreError("\(relative) is larger than 1 MiB (1048576 bytes), the document limit; split it before importing") }
        guard String(validating: bytes, as: UTF8.self) != nil, case .object? = try? JSONParser.parse(bytes) else {
            throw StoreError("\(relative) is not a JSON object; fix or remove it (`hearth check` lists invalid documents), then import again")
        }
        return bytes
    }

    /// Appends `text` as a COPY text-format column: backslash, tab, newline and carriage return
    /// escaped.
    static func appendCopyText<S: Sequence<UInt8>>(_ text: S, to out: inout [UInt8]) {
        for byte in text {
            switch byte {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x09: out += [0x5C, 0x74]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            default: out.append(byte)
            }
        }
    }

    static func appendCopyText(_ text: String, to out: inout [UInt8]) { appendCopyText(text.utf8, to: &out) }

    /// ``appendCopyText(_:to:)`` for bytes: the runs between bytes to escape are appended whole.
    static func appendCopyText(_ text: [UInt8], to out: inout [UInt8]) {
        text.withUnsafeBufferPointer { b in
            var start = 0
            for i in 0..<b.count {
                let escaped: UInt8
                switch b[i] {
                case 0x5C: escaped = 0x5C
                case 0x09: escaped = 0x74
                case 0x0A: escaped = 0x6E
                case 0x0D: escaped = 0x72
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
                out.append(0x5C)
                out.append(escaped)
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start...]))
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
                // As the directory backend lists a collection: a `.json` name is a document
                // without a `stat` (a directory so named fails the read, naming it).
                if name.hasSuffix(".json"), DocumentPath.isValid(name: String(name.dropLast(5))) {
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
