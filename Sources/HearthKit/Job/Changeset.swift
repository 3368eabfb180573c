/// Everything one job run wants to write: document creates, updates and deletes, and the
/// outbox messages to queue — committed all-or-nothing (docs/reliability.md#commits-locking-crashes).
public struct Changeset: Sendable {
    public enum Action: String, Sendable, Codable { case create, update, delete }

    public struct Entry: Sendable {
        public var path: DocumentPath
        public var action: Action
        /// The document as read (updates and deletes).
        public var before: JSONObject?
        /// The document to write (creates and updates).
        public var after: JSONObject?
        /// The version read; nil means the file must still be absent at commit.
        public var expected: DocumentVersion?

        package init(path: DocumentPath, action: Action, before: JSONObject?, after: JSONObject?, expected: DocumentVersion?) {
            self.path = path
            self.action = action
            self.before = before
            self.after = after
            self.expected = expected
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

    public init() {}

    public var isEmpty: Bool { entries.isEmpty && messages.isEmpty }

    public func entry(for path: DocumentPath) -> Entry? { index[path].map { entries[$0] } }

    /// Records the new content of a path. Writing the same path again replaces the earlier
    /// write; an update that ends up equal to what was read is dropped.
    package mutating func put(_ entry: Entry) {
        if let i = index[entry.path] {
            var merged = entries[i]
            merged.after = entry.after
            if merged.action != .create {
                merged.action = entry.action == .delete ? .delete : .update
            }
            if merged.action == .update, let b = merged.before, let a = merged.after, a.sameContent(as: b) {
                remove(at: i)
                return
            }
            entries[i] = merged
        } else {
            if entry.action == .update, let b = entry.before, let a = entry.after, a.sameContent(as: b) { return }
            index[entry.path] = entries.count
            entries.append(entry)
        }
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
