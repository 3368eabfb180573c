import Foundation
package import HearthKit

/// Applies changesets to a ``DataDirectory`` atomically (docs/reliability.md#commits-locking-crashes), and recovers after crashes.
package struct Committer: Sendable {
    package let data: DataDirectory

    package init(data: DataDirectory) { self.data = data }

    var journalDirectory: String { data.stateDirectory + "/journal" }
    package var lockPath: String { data.stateDirectory + "/lock" }

    /// Takes the writers' lock (`.hearth/lock`), waiting up to `timeout`.
    package func lock(holder: String, timeout: Duration) throws -> CommitLock {
        try CommitLock.acquire(path: lockPath, holder: holder, timeout: timeout, what: "the data directory \(data.root)")
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
                guard let bytes = try FileIO.readSmallFile(path), let journal = Journal.decode(bytes) else {
                    throw StoreError("the committed journal \(path) is unreadable; it was fsynced before its commit, so the disk or another program damaged it. Move it aside and run `hearth check`.")
                }
                try apply(journal)
                try FileIO.remove(path)
                r.redone.append(journal.id)
            } else {
                try FileIO.remove(path)
                r.discarded.append(name)
            }
        }
        if !(r.redone.isEmpty && r.discarded.isEmpty) { try FileIO.fsyncDirectory(journalDirectory) }
        return r
    }

    /// Checks that every document the changeset writes is still as the run read it.
    /// Call with the lock held. Returns the paths that changed.
    package func conflicts(in changeset: Changeset) throws -> [DocumentPath] {
        var changed: [DocumentPath] = []
        for e in changeset.entries {
            let now = try data.currentVersion(e.path)
            if now != e.expected { changed.append(e.path) }
        }
        return changed
    }

    /// Commits: journal, commit point, files, directory syncs, journal removal.
    /// `extra` adds files under `.hearth/` (outbox messages, the run record) to the same commit;
    /// `leading` adds files written before the documents (ledger entries, see ``Ledger``).
    package func commit(_ changeset: Changeset, id: String, leading: [Journal.Operation] = [], extra: [Journal.Operation] = []) throws {
        var ops: [Journal.Operation] = leading
        ops.reserveCapacity(leading.count + changeset.entries.count + extra.count)
        for e in changeset.entries {
            switch e.action {
            case .create, .update: ops.append(.put(e.path.relativeFile, e.content ?? JSONWriter.document(JSONObject())))
            case .delete: ops.append(.delete(e.path.relativeFile))
            }
        }
        ops.append(contentsOf: extra)
        if ops.isEmpty { return }
        let journal = Journal(id: id, operations: ops)
        try FileIO.makeDirectories(journalDirectory)
        let pending = journalDirectory + "/" + id + ".pending"
        let committed = journalDirectory + "/" + id + ".journal"
        let fd = open(pending, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw FileIO.Failure(path: pending, operation: "create", errno: errno) }
        do {
            try journal.encode { piece throws(FileIO.Failure) in try FileIO.writeAll(fd, piece, path: pending) }
            FaultInjection.commitStep()
            guard fsync(fd) == 0 else { throw FileIO.Failure(path: pending, operation: "fsync", errno: errno) }
            close(fd)
        } catch {
            close(fd)
            unlink(pending)
            throw error
        }
        guard rename(pending, committed) == 0 else { throw FileIO.Failure(path: committed, operation: "rename", errno: errno) }
        try FileIO.fsyncDirectory(journalDirectory)
        FaultInjection.commitStep()
        // Committed. From here a crash is finished by recovery.
        try apply(journal)
        try FileIO.remove(committed)
        try FileIO.fsyncDirectory(journalDirectory)
    }

    /// Commits with more files than this make their temp files durable with one `syncfs(2)`
    /// instead of one `fsync(2)` each.
    static let batchSyncThreshold = 32

    /// Writes a journal's files. Idempotent, so recovery may run it again.
    ///
    /// Every file goes through a temp file beside it and a rename, and its bytes are on disk
    /// before the rename: small commits fsync each temp file (docs/reliability.md#commits-locking-crashes to the letter); large
    /// ones write all temp files, make them durable with one `syncfs` of the data directory's
    /// file system, then rename. The ordering guarantee is the same — no rename is visible
    /// before its bytes are durable — at one sync instead of thousands (a commit of 20,000
    /// files drops from minutes to about a second on this machine's disk). Directory entries
    /// are then made durable (fsync of each directory, or a second `syncfs`) before the
    /// journal is removed.
    func apply(_ journal: Journal) throws {
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
                if isDocument { try data.ownership.makeDirectories(dir) } else { try FileIO.makeDirectories(dir) }
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
                if let bytes = item.bytes { try FileIO.writeAtomically(item.path, bytes, ownership: target(i)) } else { try FileIO.remove(item.path) }
                FaultInjection.commitStep()
            }
            for d in dirs.sorted() { try FileIO.fsyncDirectory(d) }
            return
        }
        // Big commits: temp files on all cores, one syncfs, renames on all cores, one syncfs.
        // Neither step depends on the order of the files (the journal is the commit point), and
        // a failure leaves only temp files that recovery rewrites under the same names.
        let written = concurrentChunks(count: items.count, chunkSize: 128) { range in
            range.map { i -> Result<String, FileIO.Failure> in
                guard let bytes = items[i].bytes else { return .success("") }
                defer { FaultInjection.commitStep() }
                return Result { () throws(FileIO.Failure) in try FileIO.writeTemporary(for: items[i].path, bytes, sync: false, ownership: target(i)) }
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
