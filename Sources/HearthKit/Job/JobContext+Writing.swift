public import Foundation
import Synchronization

extension JobContext {
    /// Writes `object` over `document` if it differs in content; an unchanged document is
    /// never rewritten. A number written back with the value it had keeps the text it was
    /// written with (docs/data-directory.md#numbers).
    public func update(_ document: Document, to object: JSONObject) {
        if object.sameContent(as: document.object) { return }
        let object = object.keepingNumberText(of: document.object)
        // A first write to the path is encoded and diffed outside the lock, so that jobs
        // writing from several threads (``rereadConcurrently(_:chunkSize:_:)``) do that work in
        // parallel; a later one merges with the earlier entry under the lock.
        let first = state.withLock { $0.changeset.entry(for: document.path) == nil }
        let entry = first ? Changeset.Entry(path: document.path, action: .update, before: document.object, after: object, expected: document.version) : nil
        state.withLock { s in
            guard !s.invalidPaths.contains(document.path) else { return }
            if let entry, s.changeset.entry(for: document.path) == nil {
                s.changeset.put(entry)
            } else {
                s.changeset.put(path: document.path, action: .update, before: document.object, after: object, expected: document.version)
            }
        }
    }

    /// Changes some fields of `document` (keys keep their order; new keys are appended).
    public func update(_ document: Document, _ change: (inout JSONObject) throws -> Void) rethrows {
        var o = pending(document)
        try change(&o)
        update(document, to: o)
    }

    /// The content this run will write for `document`: its pending update, else as read.
    public func pending(_ document: Document) -> JSONObject {
        state.withLock { $0.changeset.entry(for: document.path)?.after } ?? document.object
    }

    /// Creates a document that must not exist (checked again at commit).
    public func create(_ path: DocumentPath, _ object: JSONObject) {
        state.withLock { s in
            guard !s.invalidPaths.contains(path) else {
                s.warnings.append("\(path.relativeFile): not created because the existing file is invalid")
                return
            }
            s.changeset.put(path: path, action: .create, before: nil, after: object, expected: nil)
        }
    }

    public func delete(_ document: Document) {
        state.withLock { s in
            s.changeset.put(path: document.path, action: .delete, before: document.object, after: nil, expected: document.version)
        }
    }

    /// Queues an outbox message in this run's commit.
    public func queue(_ message: OutboxMessage) {
        state.withLock { $0.changeset.queue(message) }
    }

    // MARK: What decisions rest on (docs/reliability.md#what-a-commit-checks)

    /// Records that a decision of this run rests on `document` as it was read: if another
    /// writer changes or deletes it before this run commits, the commit is a conflict and the
    /// run starts again on the new state, as for a document the run writes. For what the run
    /// reads and does not write: a balance a gift failed on, the friendship a gift needed.
    /// Only the path and version of `document` count (a job may keep those alone).
    public func depend(on document: Document) { depend(on: CollectionOfOne(document)) }

    /// ``depend(on:)`` for each of `documents`.
    public func depend(on documents: some Sequence<Document>) {
        state.withLock { s in for d in documents { s.changeset.depend(on: d.path, expected: d.version) } }
    }

    /// Records that a decision of this run rests on there being no document at `path` (an
    /// unknown sender): a document created there before the commit makes it a conflict.
    public func depend(onAbsent path: DocumentPath) {
        state.withLock { $0.changeset.depend(on: path, expected: nil) }
    }

    // MARK: Hearth's ledger (bookkeeping outside the apps' documents)

    /// The ledger entries of `namespace` dated within `[from, to]` (by UTC hour), as committed
    /// by earlier runs of any job (see ``LedgerRecord``).
    public func ledger(_ namespace: String, from: Date, to: Date) throws -> [String: String] {
        try store.ledgerEntries(namespace: namespace, from: from, to: to)
    }

    /// Records `key → value` in the ledger's `namespace`, dated `date`, in this run's commit
    /// (written before the run's documents). A dry run records nothing.
    public func record(_ namespace: String, key: String, value: String, date: Date) {
        precondition(LedgerRecord.isValidNamespace(namespace), "invalid ledger namespace \(namespace)")
        state.withLock { $0.changeset.record(LedgerRecord(namespace: namespace, key: key, value: value, date: date)) }
    }

    /// Deletes, in this run's commit, the ledger files of `namespace` from hours before `date`'s.
    public func pruneLedger(_ namespace: String, before date: Date) throws {
        let files = try store.ledgerFiles(namespace: namespace, before: date)
        state.withLock { s in for f in files { s.changeset.deleteLedgerFile(f) } }
    }

    /// The result the caller gets (`{"result": value}`) once the run's changeset is committed;
    /// the last answer counts. To refuse a call, throw a ``CallError`` instead: nothing is
    /// written.
    public func answer(_ value: JSONValue) {
        state.withLock { $0.result = value }
    }

    /// The run's call, or ``CallError/Code/failedPrecondition`` for a run no app called (a
    /// callable job run from its schedule or `hearth run`).
    public func requireCall() throws(CallError) -> Call {
        guard let call else { throw CallError(.failedPrecondition, "\(jobName) answers calls only: use `hearth call \(jobName) --data JSON`") }
        return call
    }

    public func warn(_ message: String) {
        state.withLock { $0.warnings.append(message) }
    }
}
