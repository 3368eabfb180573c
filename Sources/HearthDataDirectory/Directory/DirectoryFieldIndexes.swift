package import HearthKit
import Synchronization

/// Indexes of a data directory's documents by a field's value (messages by `conversationId`),
/// kept in memory by the process that watches the collection
/// (docs/storage/field-indexes.md).
///
/// The change feed (``DataDirectory/changeFeed(collections:)``) tells the indexes what it saw:
/// which collections it watches, the documents written, and writes it may have missed. An index
/// is only used while its collection is watched and nothing was missed since it was built:
///
/// - It is built by the first search that needs it while the collection is watched: one read of
///   the whole collection (which answers that search too). Nothing is persisted, so writes made
///   while no process watched (the daemon stopped, another process writing alone) are in the
///   files the next build reads.
/// - A document the feed reports written is marked dirty and read again by the next search of
///   that collection, whatever value it is searched for; an entry that no longer holds the
///   value it is listed under is dropped when a search for that value reads it. So a search
///   reads the documents listed under its values, the dirty ones and the invalid ones (which
///   every search returns, as a full read reports them), never a document it does not need
///   twice.
/// - ``lost(_:)`` (an overflow, a folder re-created) and the end of the watch drop the
///   collection's indexes; the next search builds them again.
///
/// A write the feed has not reported yet (between the rename and the event) is not seen; its
/// event starts the run that sees it.
package final class DirectoryFieldIndexes: Sendable {
    private struct Key: Hashable {
        var collection: String
        var field: String
    }

    private struct FieldIndex {
        /// A search is reading the collection to build it; until then searches read the collection.
        var built = false
        /// Value → the documents whose field held that string when last read (entries that
        /// changed since are dropped when a search for the value reads them).
        var ids: [String: Set<String>] = [:]
        /// Documents that were not JSON objects when last read: every search returns them.
        var invalid: Set<String> = []
        /// Documents written since they were last read.
        var dirty: Set<String> = []

        /// A document read while building.
        mutating func note(_ read: DocumentRead, field: String) {
            switch read {
            case .document(let d): if let v = d[field]?.stringValue { ids[v, default: []].insert(d.path.id) }
            case .invalid(let p, _): invalid.insert(p.id)
            case .missing: break
            }
        }

        /// A document a search read again: listed under its value now, no longer under the values
        /// searched for that it does not hold (an entry under another old value is dropped when a
        /// search for that value reads it).
        mutating func update(_ read: DocumentRead, field: String, searched: Set<String>) {
            let id: String
            var now: String?
            switch read {
            case .document(let d):
                id = d.path.id
                now = d[field]?.stringValue
                invalid.remove(id)
            case .invalid(let p, _):
                id = p.id
                invalid.insert(id)
            case .missing(let p):
                id = p.id
                invalid.remove(id)
            }
            for v in searched where v != now {
                ids[v]?.remove(id)
                if ids[v]?.isEmpty == true { ids[v] = nil }
            }
            if let now { ids[now, default: []].insert(id) }
        }
    }

    private struct State {
        var watched: Set<String> = []
        /// Per collection, bumped whenever its indexes are dropped, so a build or a search that
        /// started before does not store what it read.
        var epochs: [String: Int] = [:]
        var indexes: [Key: FieldIndex] = [:]

        mutating func drop(_ collection: String) {
            epochs[collection, default: 0] += 1
            indexes = indexes.filter { $0.key.collection != collection }
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the change feed watches `collection` (true from the moment its watch exists).
    /// Either way the collection's indexes start again from the files.
    package func watching(_ collection: String, _ on: Bool) {
        state.withLock { s in
            if on { s.watched.insert(collection) } else { s.watched.remove(collection) }
            s.drop(collection)
        }
    }

    /// The documents `ids` of `collection` (top-level) were written (created, changed or deleted).
    package func written(_ collection: String, ids: [String]) {
        state.withLock { s in
            for key in s.indexes.keys where key.collection == collection { s.indexes[key]!.dirty.formUnion(ids) }
        }
    }

    /// Writes to `collection` may have been missed (overflow, folder re-created).
    package func lost(_ collection: String) {
        state.withLock { $0.drop(collection) }
    }

    /// Whether `collection` has a built index on `field` (for tests and the docs' figures).
    package func isBuilt(_ collection: String, field: String) -> Bool {
        state.withLock { $0.indexes[Key(collection: collection, field: field)]?.built ?? false }
    }

    /// The documents of `collection` (top-level) whose `field` holds a string of `values`, and
    /// the ones that are not JSON objects, in id order, with how many documents were read (an
    /// absent file is none); nil
    /// when the index cannot answer (the collection is not watched, or another search is
    /// building the index): the caller reads the collection.
    ///
    /// `list` gives the collection's ids, `read` reads documents (in order), as the store does.
    package func search(
        _ collection: String, field: String, values: Set<String>,
        list: () throws(StoreError) -> [String], read: @Sendable (ArraySlice<DocumentPath>) -> [DocumentRead]
    ) throws(StoreError) -> (reads: [DocumentRead], read: Int)? {
        let key = Key(collection: collection, field: field)
        enum Plan { case none, build(epoch: Int), lookup(epoch: Int, ids: Set<String>) }
        let plan = state.withLock { s -> Plan in
            guard s.watched.contains(collection) else { return .none }
            let epoch = s.epochs[collection, default: 0]
            guard var index = s.indexes[key] else {
                s.indexes[key] = FieldIndex()
                return .build(epoch: epoch)
            }
            guard index.built else { return .none }
            var ids = index.invalid.union(index.dirty)
            for v in values { if let listed = index.ids[v] { ids.formUnion(listed) } }
            index.dirty = []
            s.indexes[key] = index
            return .lookup(epoch: epoch, ids: ids)
        }
        switch plan {
        case .none:
            return nil
        case .build(let epoch):
            let ids: [String]
            do { ids = try list() } catch {
                state.withLock { s in if s.epochs[collection, default: 0] == epoch { s.indexes[key] = nil } }
                throw error
            }
            // A chunk at a time: the collection is never in memory whole, only what it keeps.
            var index = FieldIndex(built: true)
            var found: [DocumentRead] = []
            var count = 0
            for start in stride(from: 0, to: ids.count, by: Self.buildChunk) {
                for r in Self.readAll(DocumentPath.paths(in: collection, ids: ids[start..<min(ids.count, start + Self.buildChunk)]), read) {
                    index.note(r, field: field)
                    if case .missing = r {} else { count += 1 }
                    if Self.keep(r, field: field, values: values) { found.append(r) }
                }
            }
            state.withLock { s in
                // Writes reported while the build read the files are read again by the next search.
                guard s.epochs[collection, default: 0] == epoch, let building = s.indexes[key] else { return }
                index.dirty = building.dirty
                s.indexes[key] = index
            }
            return (found, count)
        case .lookup(let epoch, let ids):
            let paths = DocumentPath.paths(in: collection, ids: ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            let reads = Self.readAll(paths, read)
            state.withLock { s in
                guard s.epochs[collection, default: 0] == epoch, s.indexes[key] != nil else { return }
                for r in reads { s.indexes[key]!.update(r, field: field, searched: values) }
            }
            return (reads.filter { Self.keep($0, field: field, values: values) }, reads.count { if case .missing = $0 { false } else { true } })
        }
    }

    /// How many documents a build reads at a time.
    static let buildChunk = 8192

    /// `paths` read on all cores, in order.
    private static func readAll(_ paths: [DocumentPath], _ read: @Sendable (ArraySlice<DocumentPath>) -> [DocumentRead]) -> [DocumentRead] {
        concurrentChunks(count: paths.count, chunkSize: 256) { range in read(paths[range]) }
    }

    /// Whether a search for `values` returns `read`: a document whose field holds one of them,
    /// or a file that is not a JSON object.
    private static func keep(_ read: DocumentRead, field: String, values: Set<String>) -> Bool {
        switch read {
        case .document(let d): d[field]?.stringValue.map(values.contains) ?? false
        case .invalid: true
        case .missing: false
        }
    }
}
