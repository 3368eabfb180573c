import Foundation
import HearthKit
import HearthStore

extension Committer {
    /// What a staged commit writes at one path.
    private enum Content {
        case bytes([UInt8])
        /// Made when written (``Write/deferred(_:_:)``).
        case deferred(@Sendable () -> [UInt8])
        case delete

        static func of(_ write: Write) -> (path: String, content: Content) {
            switch write {
            case .put(let rel, let bytes): (rel, .bytes(bytes))
            case .delete(let rel): (rel, .delete)
            case .deferred(let rel, let make): (rel, .deferred(make))
            }
        }
    }

    /// A big commit, staged (docs/reliability.md#commits-locking-crashes): the journal names
    /// the files, and their bytes go once to disk, into the temp files beside them.
    ///
    /// 1. The staged journal (paths only) is written to `<id>.pending` and made durable, so a
    ///    crash from here on leaves a list of the temp files to remove.
    /// 2. Every file's bytes (the changeset holds each document's encoded bytes; an outbox
    ///    batch's are made here, ``Write/deferred(_:_:)``) are written to its temp file on all
    ///    cores; one `syncfs` makes them durable.
    ///    A failure here removes the temp files and the journal: nothing was committed.
    /// 3. The rename to `<id>.journal` is the commit point.
    /// 4. Renames and deletes on all cores, `syncfs`, journal removed (``finishStaged(_:)``,
    ///    which recovery runs for a committed staged journal).
    func commitStaged(_ changeset: Changeset, id: String, leading: [Journal.Operation], extra: [Write], writer: WriterMark?) throws {
        var writes: [(path: String, content: Content)] = []
        writes.reserveCapacity(leading.count + changeset.entries.count + extra.count)
        writes.append(contentsOf: leading.map { Content.of(Write($0)) })
        writes.append(contentsOf: changeset.entries.map { Content.of(Write($0)) })
        writes.append(contentsOf: extra.map(Content.of))
        for w in writes where !Journal.isSafe(w.path) { throw StoreError("commit \(id) names an unsafe path \(w.path); refusing to write it") }
        let journal = Journal(id: id, staged: writes.map { w -> Journal.Staged in
            if case .delete = w.content { return .delete(w.path) }
            return .rename(w.path)
        })

        // 1. The list, durable before any temp file exists.
        try FileIO.makeDirectories(journalDirectory, within: data.root)
        let pending = journalDirectory + "/" + id + ".pending"
        let committed = journalDirectory + "/" + id + ".journal"
        try writeJournal(journal, to: pending)
        try FileIO.fsyncDirectory(journalDirectory)
        FaultInjection.commitStep()

        // 2. Directories, then every temp file (on all cores), then one syncfs.
        let root = data.root
        let ownership = data.ownership
        var made = Set<String>()
        var newFileTargets: [String: FileOwnership.Target] = [:]
        for w in writes {
            if case .delete = w.content { continue }
            let dir = FileIO.directoryName(root + "/" + w.path)
            guard made.insert(dir).inserted else { continue }
            if w.path.hasPrefix(".hearth/") {
                try FileIO.makeDirectories(dir, within: root)
            } else {
                try ownership.makeDirectories(dir, within: root)
                newFileTargets[dir] = ownership.newFileTarget(inDirectory: dir)
            }
        }
        let items = writes
        let newFile = newFileTargets
        // On all cores, each thread in its own directory while more than one has files left
        // (``concurrentLanes(_:chunkSize:share:_:)``); two share one directory at the end.
        let failures = concurrentLanes(Self.lanes(of: items.map(\.path)), share: true) { chunk in
            chunk.compactMap { i -> FileIO.Failure? in
                let path = root + "/" + items[i].path
                let bytes: [UInt8]
                var target: FileOwnership.Target?
                var mark: WriterMark?
                switch items[i].content {
                case .delete: return nil
                case .bytes(let b): bytes = b
                case .deferred(let make): bytes = make()
                }
                if !items[i].path.hasPrefix(".hearth/") {
                    let dir = FileIO.directoryName(path)
                    target = ownership.target(forFile: path, newFile: newFile[dir] ?? ownership.newFileTarget(inDirectory: dir))
                    mark = writer
                }
                defer { FaultInjection.commitStep() }
                do throws(FileIO.Failure) {
                    _ = try FileIO.writeTemporary(for: path, sync: false, ownership: target) { fd, tmp throws(FileIO.Failure) in
                        try FileIO.writeAll(fd, bytes, path: tmp)
                        mark?.apply(to: fd, relativePath: items[i].path)
                    }
                    return nil
                } catch {
                    return error
                }
            }
        }
        do {
            if let failure = failures.first { throw failure }
            try FileIO.syncFileSystem(root)
        } catch {
            // Not committed: take back every temp file and the list.
            for w in items {
                if case .delete = w.content { continue }
                unlink(FileIO.temporaryPath(for: root + "/" + w.path))
            }
            unlink(pending)
            throw error
        }
        FaultInjection.commitStep()

        // 3. The commit point.
        guard rename(pending, committed) == 0 else { throw FileIO.Failure(path: committed, operation: "rename", errno: errno) }
        try FileIO.fsyncDirectory(journalDirectory)
        FaultInjection.commitStep()

        // 4. Committed. From here a crash is finished by recovery.
        try finishStaged(journal)
        try FileIO.remove(committed)
        try FileIO.fsyncDirectory(journalDirectory)
    }

    /// Finishes a committed staged journal: every temp file renamed into place (one that is
    /// gone was renamed before a crash), every delete done, on all cores; then one `syncfs`.
    /// Idempotent, so recovery may run it again.
    func finishStaged(_ journal: Journal) throws {
        let root = data.root
        for step in journal.staged where !Journal.isSafe(step.path) {
            throw StoreError("journal \(journal.id) names an unsafe path \(step.path); refusing to apply it")
        }
        // Ledger entries first, then the rest: a reader that sees a document the run wrote
        // also sees its ledger entries (see ``Ledger``).
        let ledger = journal.staged.filter { $0.path.hasPrefix(".hearth/ledger/") }
        let rest = journal.staged.filter { !$0.path.hasPrefix(".hearth/ledger/") }
        for steps in [ledger, rest] where !steps.isEmpty {
            // Never two threads in one directory: a rename or unlink holds its directory's lock
            // throughout, so a second thread there only spins waiting for it (docs/performance.md,
            // "Renames: one thread per directory"). Directories in parallel, a chunk at a time,
            // so that two threads share out three directories evenly; in order within each.
            let failures = concurrentLanes(Self.lanes(of: steps.map(\.path)), share: false) { chunk in
                chunk.compactMap { i -> FileIO.Failure? in
                    defer { FaultInjection.commitStep() }
                    let path = root + "/" + steps[i].path
                    switch steps[i] {
                    case .delete:
                        do throws(FileIO.Failure) { try FileIO.remove(path) } catch { return error }
                    case .rename:
                        if rename(FileIO.temporaryPath(for: path), path) != 0, errno != ENOENT {
                            return FileIO.Failure(path: path, operation: "rename", errno: errno)
                        }
                    }
                    return nil
                }
            }
            if let failure = failures.first { throw failure }
        }
        try FileIO.syncFileSystem(root)
    }

    /// The indices of `paths` grouped by directory, in their order within each group; the
    /// groups largest first, so that the largest directory starts first and the small ones fill
    /// in beside it.
    package static func lanes(of paths: [String]) -> [[Int]] {
        var byDirectory: [Substring: [Int]] = [:]
        for (i, path) in paths.enumerated() {
            let dir = path.lastIndex(of: "/").map { path[..<$0] } ?? ""
            byDirectory[dir, default: []].append(i)
        }
        return byDirectory.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.map(\.value)
    }
}
