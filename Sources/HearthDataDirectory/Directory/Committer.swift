import Foundation
package import HearthKit
import HearthStore

/// Applies changesets to a ``DataDirectory`` atomically (docs/reliability.md#commits-locking-crashes), and recovers after crashes.
package struct Committer: Sendable {
    package let data: DataDirectory

    package init(data: DataDirectory) { self.data = data }

    var journalDirectory: String { data.stateDirectory + "/journal" }
    package var lockPath: String { data.stateDirectory + "/lock" }

    /// Takes the writers' lock (`.hearth/lock`), waiting up to `timeout`.
    package func lock(holder: String, timeout: Duration) throws -> CommitLock {
        try CommitLock.acquire(path: lockPath, root: data.root, holder: holder, timeout: timeout, what: "the data directory \(data.root)")
    }

    /// What ``recover()`` did.
    package struct Recovery: Sendable, Equatable {
        package var redone: [String] = []
        package var discarded: [String] = []
    }

    /// Finishes every committed journal and discards uncommitted ones. Call with the lock held.
    @discardableResult
    package func recover() throws -> Recovery {
        var r = Recovery()
        guard let names = try FileIO.list(journalDirectory) else { return r }
        for name in names.sorted() {
            let path = journalDirectory + "/" + name
            if name.hasSuffix(".journal") {
                // Whole, however big (readSmallFile stops at 64 MiB, and a big commit's journal of
                // file contents could be larger).
                guard let bytes = try FileIO.readFile(path, limit: .max)?.bytes, let journal = Journal.decode(bytes) else {
                    throw StoreError("the committed journal \(path) is unreadable; it was fsynced before its commit, so the disk or another program damaged it. Move it aside and run `hearth check`.")
                }
                try apply(journal)
                try FileIO.remove(path)
                r.redone.append(journal.id)
            } else {
                // An uncommitted staged journal names the temp files written after it; a torn
                // one was never complete, so no temp file was written for it.
                if let bytes = try? FileIO.readFile(path, limit: .max)?.bytes, let journal = Journal.decode(bytes), journal.isStaged {
                    for step in journal.staged {
                        if case .rename(let rel) = step, Journal.isSafe(rel) { try FileIO.remove(FileIO.temporaryPath(for: data.root + "/" + rel)) }
                    }
                }
                try FileIO.remove(path)
                r.discarded.append(name)
            }
        }
        if !(r.redone.isEmpty && r.discarded.isEmpty) { try FileIO.fsyncDirectory(journalDirectory) }
        return r
    }

    /// Checks that every document the changeset writes, and every one its decisions rest on
    /// (``Changeset/versionChecks``), is still as the run read it.
    /// Call with the lock held. Returns the paths that changed.
    /// Reads the files on all cores (the lock is held, so nothing Hearth writes moves under it).
    package func conflicts(in changeset: Changeset) throws -> [DocumentPath] {
        let checks = changeset.versionChecks
        let data = self.data
        let found = concurrentChunks(count: checks.count, chunkSize: 256) { range in
            range.compactMap { i -> Result<DocumentPath, FileIO.Failure>? in
                do throws(FileIO.Failure) {
                    return try data.currentVersion(checks[i].path) == checks[i].expected ? nil : .success(checks[i].path)
                } catch {
                    return .failure(error)
                }
            }
        }
        return try found.map { try $0.get() }
    }

    /// A file a commit writes beside the documents (``commit(_:id:leading:extra:)``).
    package enum Write: Sendable {
        /// Relative path (from the data root) and the file's bytes.
        case put(String, [UInt8])
        case delete(String)
        /// Relative path and how to make the file's bytes (an outbox batch): a staged commit
        /// makes them when it writes the file and frees them once written, so it never holds
        /// every such file at once; a small commit makes them for its journal.
        case deferred(String, @Sendable () -> [UInt8])

        /// The write as a journal operation, a deferred file's bytes made now (a small commit's
        /// journal carries every file's bytes).
        package var operation: Journal.Operation {
            switch self {
            case .put(let rel, let bytes): .put(rel, bytes)
            case .delete(let rel): .delete(rel)
            case .deferred(let rel, let bytes): .put(rel, bytes())
            }
        }

        init(_ operation: Journal.Operation) {
            switch operation {
            case .put(let rel, let bytes): self = .put(rel, bytes)
            case .delete(let rel): self = .delete(rel)
            }
        }

        /// The file a changeset entry writes or deletes.
        init(_ entry: Changeset.Entry) {
            switch entry.action {
            case .create, .update: self = .put(entry.path.relativeFile, entry.content ?? JSONWriter.document(JSONObject()))
            case .delete: self = .delete(entry.path.relativeFile)
            }
        }
    }

    /// Commits: journal, commit point, files, directory syncs, journal removal.
    /// `extra` adds files under `.hearth/` (outbox messages, the run record) to the same commit;
    /// `leading` adds files written before the documents (ledger entries, see ``Ledger``).
    /// `writer` marks each document file written with the committing job (``WriterMark``), so
    /// change feeds in any process can tell its commit from an app's write; a commit recovery
    /// finishes after a crash leaves its files unmarked.
    package func commit(_ changeset: Changeset, id: String, leading: [Journal.Operation] = [], extra: [Write] = [], writer: WriterMark? = nil) throws {
        if leading.count + changeset.entries.count + extra.count > Committer.batchSyncThreshold {
            return try commitStaged(changeset, id: id, leading: leading, extra: extra, writer: writer)
        }
        var ops: [Journal.Operation] = leading
        ops.reserveCapacity(leading.count + changeset.entries.count + extra.count)
        ops.append(contentsOf: changeset.entries.map { Write($0).operation })
        ops.append(contentsOf: extra.map(\.operation))
        if ops.isEmpty { return }
        let journal = Journal(id: id, operations: ops)
        try FileIO.makeDirectories(journalDirectory, within: data.root)
        let pending = journalDirectory + "/" + id + ".pending"
        let committed = journalDirectory + "/" + id + ".journal"
        try writeJournal(journal, to: pending)
        guard rename(pending, committed) == 0 else { throw FileIO.Failure(path: committed, operation: "rename", errno: errno) }
        try FileIO.fsyncDirectory(journalDirectory)
        FaultInjection.commitStep()
        // Committed. From here a crash is finished by recovery.
        try apply(journal, writer: writer)
        try FileIO.remove(committed)
        try FileIO.fsyncDirectory(journalDirectory)
    }

    /// Commits with more files than this make their temp files durable with one `syncfs(2)`
    /// instead of one `fsync(2)` each, and are staged (``commitStaged(_:id:leading:extra:)``).
    static let batchSyncThreshold = 32

    /// Writes `journal` to `path` and fsyncs it; on failure removes it.
    func writeJournal(_ journal: Journal, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw FileIO.Failure(path: path, operation: "create", errno: errno) }
        do {
            try journal.encode { piece throws(FileIO.Failure) in try FileIO.writeAll(fd, piece, path: path) }
            FaultInjection.commitStep()
            guard fsync(fd) == 0 else { throw FileIO.Failure(path: path, operation: "fsync", errno: errno) }
            close(fd)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// Writes a journal's files, its documents marked as `writer`'s. Idempotent, so recovery
    /// may run it again.
    ///
    /// Every file goes through a temp file beside it and a rename, and its bytes are on disk
    /// before the rename: small commits fsync each temp file (docs/reliability.md#commits-locking-crashes to the letter); large
    /// ones write all temp files, make them durable with one `syncfs` of the data directory's
    /// file system, then rename. The ordering guarantee is the same — no rename is visible
    /// before its bytes are durable — at one sync instead of thousands (a commit of 20,000
    /// files drops from minutes to about a second on this machine's disk). Directory entries
    /// are then made durable (fsync of each directory, or a second `syncfs`) before the
    /// journal is removed.
    func apply(_ journal: Journal, writer: WriterMark? = nil) throws {
        if journal.isStaged { return try finishStaged(journal) }
        var dirs = Set<String>()
        // (absolute path, new bytes or nil for a delete), in journal order.
        var collected: [(path: String, bytes: [UInt8]?, isDocument: Bool)] = []
        collected.reserveCapacity(journal.operations.count)
        for op in journal.operations {
            let rel: String
            let bytes: [UInt8]?
            switch op {
            case .put(let r, let b): (rel, bytes) = (r, b)
            case .delete(let r): (rel, bytes) = (r, nil)
            }
            guard Journal.isSafe(rel) else { throw StoreError("journal \(journal.id) names an unsafe path \(rel); refusing to apply it") }
            let path = data.root + "/" + rel
            let dir = FileIO.directoryName(path)
            let isDocument = !rel.hasPrefix(".hearth/")
            if bytes != nil, !dirs.contains(dir) {
                if isDocument { try data.ownership.makeDirectories(dir, within: data.root) } else { try FileIO.makeDirectories(dir, within: data.root) }
            }
            dirs.insert(dir)
            collected.append((path, bytes, isDocument))
        }
        let items = collected
        let ownership = data.ownership
        // Documents keep their owner, group and mode; new ones get the parent's group and
        // `fileMode` (``FileOwnership``). Hearth's own files under .hearth/ are 0640.
        var newFileTargets: [String: FileOwnership.Target] = [:]
        for item in items where item.isDocument && item.bytes != nil {
            let dir = FileIO.directoryName(item.path)
            if newFileTargets[dir] == nil { newFileTargets[dir] = ownership.newFileTarget(inDirectory: dir) }
        }
        let newFile = newFileTargets
        let target: @Sendable (Int) -> FileOwnership.Target? = { i in
            guard items[i].isDocument else { return nil }
            let path = items[i].path
            return ownership.target(forFile: path, newFile: newFile[FileIO.directoryName(path)] ?? ownership.newFileTarget(inDirectory: FileIO.directoryName(path)))
        }
        guard items.count > Committer.batchSyncThreshold else {
            for (i, item) in items.enumerated() {
                if let bytes = item.bytes {
                    let mark = item.isDocument ? writer : nil
                    let relative = String(item.path.dropFirst(data.root.count + 1))
                    try FileIO.writeAtomically(item.path, ownership: target(i)) { fd, tmp throws(FileIO.Failure) in
                        try FileIO.writeAll(fd, bytes, path: tmp)
                        mark?.apply(to: fd, relativePath: relative)
                    }
                } else {
                    try FileIO.remove(item.path)
                }
                FaultInjection.commitStep()
            }
            for d in dirs.sorted() { try FileIO.fsyncDirectory(d) }
            return
        }
        // Big commits: temp files on all cores, one syncfs, renames on all cores, one syncfs.
        // Neither step depends on the order of the files (the journal is the commit point), and
        // a failure leaves only temp files that recovery rewrites under the same names.
        let root = data.root
        let written = concurrentChunks(count: items.count, chunkSize: 128) { range in
            range.map { i -> Result<String, FileIO.Failure> in
                guard let bytes = items[i].bytes else { return .success("") }
                defer { FaultInjection.commitStep() }
                let mark = items[i].isDocument ? writer : nil
                let relative = String(items[i].path.dropFirst(root.count + 1))
                return Result { () throws(FileIO.Failure) in
                    try FileIO.writeTemporary(for: items[i].path, sync: false, ownership: target(i)) { fd, tmp throws(FileIO.Failure) in
                        try FileIO.writeAll(fd, bytes, path: tmp)
                        mark?.apply(to: fd, relativePath: relative)
                    }
                }
            }
        }
        let temps = try written.map { try $0.get() }
        try FileIO.syncFileSystem(data.root)
        let failures = concurrentChunks(count: items.count, chunkSize: 128) { range in
            range.compactMap { i -> FileIO.Failure? in
                defer { FaultInjection.commitStep() }
                if temps[i].isEmpty {
                    do throws(FileIO.Failure) { try FileIO.remove(items[i].path) } catch { return error }
                } else if rename(temps[i], items[i].path) != 0 {
                    return FileIO.Failure(path: items[i].path, operation: "rename", errno: errno)
                }
                return nil
            }
        }
        if let failure = failures.first { throw failure }
        try FileIO.syncFileSystem(data.root)
    }
}
