package import Foundation
package import HearthKit
import Synchronization
package import HearthStore

/// The JSON data directory of docs/data-directory.md#documents: `<root>/<collection>/<docId>.json`.
package struct DataDirectory: DocumentStore {

    /// Absolute, symlink-resolved root.
    package let root: String
    /// Owner, group and mode of the documents and directories commits write.
    package let ownership: FileOwnership
    /// What this process's change feed keeps of the collections it watches (shared by copies).
    package let fieldIndexes = DirectoryFieldIndexes()

    /// Opens (does not create) a data directory.
    package init(root: String, ownership: FileOwnership = FileOwnership()) throws(StoreError) {
        guard let real = FileIO.realPath(root), (try? FileIO.statPath(real))??.isDirectory == true else {
            throw StoreError("data directory \(root) does not exist or is not a directory; create it (e.g. with `hearth seed --out \(root)`) or set dataDir / --data")
        }
        self.root = real
        self.ownership = ownership
    }

    package var stateDirectory: String { root + "/.hearth" }

    package func filePath(_ path: DocumentPath) -> String { root + "/" + path.relativeFile }

    package func collectionDirectory(_ collection: String) -> String { root + "/" + collection }

    /// Whether `path` (absolute) resolves inside the data directory.
    func staysInside(_ path: String) -> Bool {
        guard let real = FileIO.realPath(path) else { return false }
        return real == root || real.hasPrefix(root + "/")
    }

    package func documentIDs(in collection: String) throws(StoreError) -> [String] {
        try listCollection(collection).ids
    }

    /// Document ids plus the names Hearth ignores (non-`.json` files, invalid names).
    package func listCollection(_ collection: String) throws(StoreError) -> (ids: [String], ignored: [String]) {
        try StoredDocument.validateCollection(collection)
        let dir = collectionDirectory(collection)
        let dirStat: FileIO.Stat?
        do { dirStat = try FileIO.lstatPath(dir) } catch { throw StoreError(error.description) }
        guard let dirStat else { return ([], []) }
        if dirStat.isSymlink, !staysInside(dir) {
            throw StoreError("\(collection)/ is a symbolic link pointing outside the data directory; Hearth never follows it. Replace it with a real directory.")
        }
        let names: [String]
        do { names = try FileIO.list(dir) ?? [] } catch { throw StoreError(error.description) }
        var ids: [String] = []
        var ignored: [String] = []
        ids.reserveCapacity(names.count)
        for name in names {
            if name.hasPrefix(".") { continue }
            if name.hasSuffix(".json") {
                let id = String(name.dropLast(5))
                if DocumentPath.isValid(name: id) { ids.append(id) } else { ignored.append(name) }
            } else if (try? FileIO.lstatPath(dir + "/" + name))??.isDirectory != true {
                ignored.append(name)
            }
        }
        ids.sort()
        ignored.sort()
        return (ids, ignored)
    }

    /// Top-level collections (directories not starting with `.`).
    package func collections() throws(StoreError) -> [String] {
        let names: [String]
        do { names = try FileIO.list(root) ?? [] } catch { throw StoreError(error.description) }
        return names.filter { n in
            !n.hasPrefix(".") && DocumentPath.isValid(name: n) && ((try? FileIO.statPath(root + "/" + n))??.isDirectory ?? false)
        }.sorted()
    }

    package func read(_ path: DocumentPath) -> DocumentRead {
        let file = filePath(path)
        let rel = path.relativeFile
        do {
            // Not following a final symlink first saves an `lstat` per document; a symlink
            // (ELOOP) is then followed only when it stays inside the data directory.
            var read = try FileIO.readFile(file, limit: StoredDocument.maxSize, followSymlink: false)
            if read == nil, try FileIO.lstatPath(file)?.isSymlink == true {
                guard staysInside(file) else {
                    return .invalid(path, DocumentIssue(file: rel, message: "symbolic link pointing outside the data directory; Hearth never follows it. Replace it with the document itself."))
                }
                read = try FileIO.readFile(file, limit: StoredDocument.maxSize)
            }
            guard let (bytes, st, tooLarge) = read else {
                return .missing(path)
            }
            return Self.document(path, bytes: bytes, stat: st, tooLarge: tooLarge)
        } catch {
            return .invalid(path, DocumentIssue(file: rel, message: "cannot read: \(error)"))
        }
    }

    /// A read file as a document, or why it is not one.
    static func document(_ path: DocumentPath, bytes: [UInt8], stat st: FileIO.Stat, tooLarge: Bool) -> DocumentRead {
        if !st.isRegular {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "not a regular file"))
        }
        if tooLarge {
            return .invalid(path, DocumentIssue(file: path.relativeFile, message: "document is \(st.size) bytes; the maximum is 1 MiB (1048576 bytes). Split it or move large data out of the document."))
        }
        return StoredDocument.parse(path, bytes: bytes, version: DocumentVersion(size: bytes.count, hash: DocumentVersion.hash(bytes)))
    }

    /// What ``read(_:)`` gives for each of `paths`, in order, opening each file relative to its
    /// collection's directory (opened once per run of paths in the same collection) instead of
    /// by its full path, and reading it with ``FileIO/readWhole(in:_:into:)`` into one buffer
    /// reused for every file: `openat`, `read`, `close`, no `fstat`, and the bytes parsed where
    /// they were read; an absent file costs the one failed `openat`. Anything else — a symbolic
    /// link, a file larger than the buffer, invalid JSON, an error — is read again through
    /// ``read(_:)``, so the outcome and its message are always those of ``read(_:)``.
    package func read(_ paths: ArraySlice<DocumentPath>) -> [DocumentRead] {
        var out: [DocumentRead] = []
        out.reserveCapacity(paths.count)
        var directory: (components: ArraySlice<String>, fd: Int32?)?
        let buffer = Self.takeReadBuffer()
        defer {
            Self.returnReadBuffer(buffer)
            if let fd = directory?.fd { close(fd) }
        }
        for path in paths {
            let parent = path.components.dropLast()
            if directory?.components != parent {
                if let fd = directory?.fd { close(fd) }
                directory = (parent, FileIO.openDirectory(root + "/" + parent.joined(separator: "/")))
            }
            if let fd = directory?.fd {
                switch FileIO.readWhole(in: fd, path.id + ".json", into: buffer) {
                case .bytes(let n):
                    if let document = Self.document(path, parsing: UnsafeRawBufferPointer(rebasing: buffer[..<n])) {
                        out.append(.document(document))
                        continue
                    }
                case .missing:
                    // What ``read(_:)`` says of a name that does not exist, one system call sooner.
                    out.append(.missing(path))
                    continue
                case .other: break
                }
            }
            out.append(read(path))
        }
        return out
    }

    /// The document the bytes of a fast read hold; nil when they are empty or not a JSON object
    /// (the caller then reads the file through the path that says why).
    static func document(_ path: DocumentPath, parsing bytes: UnsafeRawBufferPointer) -> Document? {
        guard !bytes.isEmpty, case .object(let object)? = try? JSONParser.parse(bytes.assumingMemoryBound(to: UInt8.self)) else { return nil }
        return Document(path: path, object: object, version: DocumentVersion(size: bytes.count, hash: DocumentVersion.hash(bytes)))
    }

    /// The buffer ``read(_:)-(ArraySlice<DocumentPath>)`` reads each file into; larger
    /// documents (rare: the seeded ones are under 4 KiB) take the slow path.
    static let readBufferSize = 64 << 10

    /// Read buffers not in use, as addresses (a pointer is not `Sendable`; each buffer is used
    /// by one reader at a time, between take and return). Kept for the life of the process, at
    /// most one per thread that reads at once: allocating and freeing 64 KiB per chunk of
    /// documents made glibc's malloc consolidate its free lists every time (2.5% of a steady run).
    private static let readBuffers = Mutex<[UInt]>([])

    static func takeReadBuffer() -> UnsafeMutableRawBufferPointer {
        let address = readBuffers.withLock { $0.popLast() }
            ?? UInt(bitPattern: UnsafeMutableRawPointer.allocate(byteCount: readBufferSize, alignment: 16))
        return UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: readBufferSize)
    }

    static func returnReadBuffer(_ buffer: UnsafeMutableRawBufferPointer) {
        let address = UInt(bitPattern: buffer.baseAddress)
        readBuffers.withLock { $0.append(address) }
    }

    /// Reads a collection on all cores; results are in id order.
    package func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] {
        let ids = try documentIDs(in: collection)
        return concurrentChunks(count: ids.count, chunkSize: 256) { range in
            read(ArraySlice(DocumentPath.paths(in: collection, ids: ids[range])))
        }
    }

    /// Reads many documents on all cores; results are in the order of `paths`.
    package func readConcurrently(_ paths: [DocumentPath]) -> [DocumentRead] {
        concurrentChunks(count: paths.count, chunkSize: 256) { range in read(paths[range]) }
    }

    /// The version of the file now, for the commit-time check; nil when absent.
    package func currentVersion(_ path: DocumentPath) throws(FileIO.Failure) -> DocumentVersion? {
        guard let (bytes, _, _) = try FileIO.readFile(filePath(path), limit: Int.max) else { return nil }
        return DocumentVersion(size: bytes.count, hash: DocumentVersion.hash(bytes))
    }
}

extension DataDirectory {
    package func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String] {
        try Ledger.entries(namespace: namespace, from: from, to: to, stateDirectory: stateDirectory)
    }

    package func ledgerFiles(namespace: String, before date: Date) throws -> [String] {
        try Ledger.files(namespace: namespace, before: date, stateDirectory: stateDirectory)
    }
}
