/// Everything one job run wants to write: document creates, updates and deletes, and the
/// outbox messages to queue — committed all-or-nothing (docs/reliability.md#commits-locking-crashes).
///
/// An entry keeps what the commit and the plan need, not the documents: the bytes to write and
/// the field-level diff from the document as read. A run that rewrites 100,000 users holds
/// their new bytes and a few changed values each, never 100,000 parsed documents before and
/// after (docs/performance.md#peak-memory).
public struct Changeset: Sendable {
    public enum Action: String, Sendable, Codable { case create, update, delete }

    /// One top-level field that an update changes.
    public struct FieldChange: Sendable, Equatable {
        public var field: String
        /// nil: the field is added.
        public var before: JSONValue?
        /// nil: the field is removed.
        public var after: JSONValue?
    }

    public struct Entry: Sendable {
        public var path: DocumentPath
        public var action: Action
        /// The file to write (creates and updates), as `JSONWriter.document` writes it.
        public private(set) var content: [UInt8]?
        /// Top-level field changes from the document as read (updates), in the new key order,
        /// then removed fields.
        public private(set) var fields: [FieldChange]
        /// The version read; nil means the file must still be absent at commit.
        public var expected: DocumentVersion?
        /// What the document as read needs beyond `content` and `fields` to be rebuilt exactly
        /// (a second write to the same path diffs against it).
        private var restore: Restore?
        /// Whether the entry was made from a document as read (``before`` is nil otherwise).
        private var hasBefore = false

        private struct Restore: Sendable {
            /// Fields whose values differ from the written ones only in form (`1` and `1.0`).
            var exact: [(String, JSONValue)] = []
            /// The keys as read, when their order differs from the rebuilt one.
            var keys: [String]?
            /// A deleted document as read (nothing else of it is kept).
            var deleted: JSONObject?
        }

        package init(path: DocumentPath, action: Action, before: JSONObject?, after: JSONObject?, expected: DocumentVersion?) {
            self.path = path
            self.action = action
            self.expected = expected
            self.content = after.map(JSONWriter.document)
            self.fields = []
            guard let before else { return }
            hasBefore = true
            guard let after else {
                restore = Restore(deleted: before)
                return
            }
            fields = Changeset.diff(before, after)
            var r = Restore()
            if after.keys == before.keys {
                for (i, v) in before.values.enumerated() where v != after.values[i] {
                    let k = before.keys[i]
                    if !fields.contains(where: { $0.field == k }) { r.exact.append((k, v)) }
                }
            } else {
                for (k, v) in before where !fields.contains(where: { $0.field == k }) {
                    if let a = after[k], a != v { r.exact.append((k, v)) }
                }
                // The rebuilt document has the kept keys in their new order, removed ones last.
                var rebuilt = after.keys.filter { k in !fields.contains { $0.field == k && $0.before == nil } }
                rebuilt += fields.filter { $0.after == nil }.map(\.field)
                if rebuilt != before.keys { r.keys = before.keys }
            }
            if !r.exact.isEmpty || r.keys != nil { restore = r }
        }

        /// The document to write (creates and updates), parsed again from ``content``.
        public var after: JSONObject? {
            guard let content else { return nil }
            guard case .object(let o)? = try? JSONParser.parse(content) else {
                preconditionFailure("JSONWriter.document output does not parse back")
            }
            return o
        }

        /// The document as read (updates and deletes), rebuilt from ``after`` and the diff.
        public var before: JSONObject? {
            if let deleted = restore?.deleted { return deleted }
            guard hasBefore, action != .create, let after else { return nil }
            if fields.isEmpty, restore == nil { return after }
            return Self.rebuild(after, fields: fields, restore: restore)
        }

        private static func rebuild(_ after: JSONObject, fields: [FieldChange], restore: Restore?) -> JSONObject {
            var b = after
            for f in fields { b[f.field] = f.before }
            for (k, v) in restore?.exact ?? [] { b[k] = v }
            if let keys = restore?.keys {
                b = JSONObject(uniqueKeys: keys, values: keys.map { b[$0] ?? .null })
            }
            return b
        }
    }

    public private(set) var entries: [Entry] = []
    private var index: [DocumentPath: Int] = [:]
    public private(set) var messages: [OutboxMessage] = []
    private var messageIDs: Set<String> = []
    /// Hearth's own bookkeeping entries (see ``LedgerRecord``), committed before the documents.
    public private(set) var ledgerRecords: [LedgerRecord] = []
    /// Ledger files (relative paths) the run prunes.
    public private(set) var ledgerDeletes: [String] = []
    /// The documents the run's decisions rest on, as read (docs/reliability.md#what-a-commit-checks).
    public private(set) var dependencies: [VersionCheck] = []
    private var dependedOn: Set<DocumentPath> = []

    /// A path and the version the commit expects to find there: a document a run writes (at the
    /// version its entry read; nil: it must still be absent) or one its decisions rest on.
    public struct VersionCheck: Sendable, Hashable {
        public var path: DocumentPath
        public var expected: DocumentVersion?
    }

    public init() {}

    /// Records that the run's decisions rest on `path` as read at `expected`. The first read
    /// of a path is the one a decision rests on: a later one is not recorded.
    package mutating func depend(on path: DocumentPath, expected: DocumentVersion?) {
        guard dependedOn.insert(path).inserted else { return }
        dependencies.append(VersionCheck(path: path, expected: expected))
    }

    /// Everything the commit checks before it writes: ``writeChecks``, then ``dependencyChecks``.
    /// A document written and depended on at two different versions is checked at both, so one
    /// fails: it changed while the run read it.
    public var versionChecks: [VersionCheck] { writeChecks + dependencyChecks }

    /// Each document the changeset writes, at the version its entry read.
    public var writeChecks: [VersionCheck] { entries.map { VersionCheck(path: $0.path, expected: $0.expected) } }

    /// The dependencies the entries do not already check (at the same version).
    public var dependencyChecks: [VersionCheck] {
        dependencies.filter { d in index[d.path].map { entries[$0].expected != d.expected } ?? true }
    }

    public var isEmpty: Bool { entries.isEmpty && messages.isEmpty }

    public func entry(for path: DocumentPath) -> Entry? { index[path].map { entries[$0] } }

    /// Records the new content of a path. Writing the same path again replaces the earlier
    /// write; an update that ends up equal to what was read is dropped.
    package mutating func put(_ entry: Entry) {
        if index[entry.path] == nil {
            if entry.action == .update, entry.fields.isEmpty, let b = entry.before, let a = entry.after, a.sameContent(as: b) { return }
            index[entry.path] = entries.count
            entries.append(entry)
        } else {
            put(path: entry.path, action: entry.action, before: entry.before, after: entry.after, expected: entry.expected)
        }
    }

    /// ``put(_:)`` from the documents: `before` as read (updates and deletes), `after` to write.
    package mutating func put(path: DocumentPath, action: Action, before: JSONObject?, after: JSONObject?, expected: DocumentVersion?) {
        guard let i = index[path] else {
            if action == .update, let before, let after, after.sameContent(as: before) { return }
            index[path] = entries.count
            entries.append(Entry(path: path, action: action, before: before, after: after, expected: expected))
            return
        }
        let earlier = entries[i]
        let merged: Action = earlier.action == .create ? .create : action == .delete ? .delete : .update
        // The document as the earlier write read it: the same version read again is the same
        // bytes, so `before` is it; otherwise rebuild it from the earlier entry.
        let original: JSONObject? =
            merged == .create ? nil : (earlier.expected == expected && before != nil ? before : earlier.before)
        if merged == .update, let original, let after, after.sameContent(as: original) {
            remove(at: i)
            return
        }
        entries[i] = Entry(path: path, action: merged, before: original, after: after, expected: earlier.expected)
    }

    /// Top-level field changes between two versions of a document, in the new key order,
    /// then removed fields.
    package static func diff(_ before: JSONObject, _ after: JSONObject) -> [FieldChange] {
        var out: [FieldChange] = []
        if before.keys == after.keys {
            for (i, v) in after.values.enumerated() where !before.values[i].sameContent(as: v) {
                out.append(FieldChange(field: after.keys[i], before: before.values[i], after: v))
            }
            return out
        }
        for (k, v) in after {
            if let old = before[k] {
                if !old.sameContent(as: v) { out.append(FieldChange(field: k, before: old, after: v)) }
            } else {
                out.append(FieldChange(field: k, before: nil, after: v))
            }
        }
        for (k, v) in before where after[k] == nil { out.append(FieldChange(field: k, before: v, after: nil)) }
        return out
    }

    private mutating func remove(at i: Int) {
        entries.remove(at: i)
        index = [:]
        for (j, e) in entries.enumerated() { index[e.path] = j }
    }

    /// Queues a message; a second message with the same id is ignored.
    mutating func queue(_ message: OutboxMessage) {
        guard messageIDs.insert(message.id).inserted else { return }
        messages.append(message)
    }

    mutating func record(_ r: LedgerRecord) { ledgerRecords.append(r) }

    mutating func deleteLedgerFile(_ relativePath: String) {
        if !ledgerDeletes.contains(relativePath) { ledgerDeletes.append(relativePath) }
    }

    /// Drops queued messages matching `predicate`.
    mutating func removeMessages(where predicate: (OutboxMessage) -> Bool) {
        messages.removeAll(where: predicate)
        messageIDs = Set(messages.map(\.id))
    }

    public var counts: (created: Int, updated: Int, deleted: Int) { Action.tally(entries.map(\.action)) }
}

extension Changeset.Action {
    /// How many of `actions` are creates, updates and deletes.
    public static func tally(_ actions: some Sequence<Self>) -> (created: Int, updated: Int, deleted: Int) {
        var c = (0, 0, 0)
        for a in actions {
            switch a {
            case .create: c.0 += 1
            case .update: c.1 += 1
            case .delete: c.2 += 1
            }
        }
        return c
    }
}
