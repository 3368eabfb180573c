public import Foundation
public import HearthKit
import HearthStore
import Synchronization

/// A storage backend held in memory, for tests: documents, atomic commits with the version
/// check, run records, scheduler state, pauses, job locks, slot claims, the ledger and an
/// outbox queue (``InMemoryOutbox``). It passes the same conformance suite as the data directory
/// and PostgreSQL (docs/architecture.md#storage), so a job test over it sees what a run over
/// either would, without a file or a server.
///
/// Documents are given and read back as JSON text (`"users/u1"`, no `.json`); a document that
/// is not valid JSON, or not an object, reads as invalid exactly as it would from a file.
///
/// Its change feed (``changeFeed(collections:)``) announces every write as it happens: a
/// ``write(_:_:)`` or ``remove(_:)`` as an app's (no writer), a commit as its job's.
public final class InMemoryStore: Sendable {
    struct Stored: Sendable {
        var bytes: [UInt8]
        var version: DocumentVersion
    }

    struct Claim: Sendable {
        var holder: String
        var leaseUntil: Date
        var done: Bool
    }

    struct State: Sendable {
        /// Collection path → id → document.
        var documents: [String: [String: Stored]] = [:]
        /// Every write takes the next number (the version's `mtimeSeconds`), so a version is
        /// never reused, not even by a document deleted and created again.
        var writes = 0
        /// The ledger's entries under the names the data directory's files have.
        var ledger: [String: [UInt8]] = [:]
        /// Run records by job, then run id.
        var records: [String: [String: RunRecord]] = [:]
        var scheduler: [String: SchedulerState] = [:]
        var pauses: [String: JobPause] = [:]
        /// The audit log, oldest first.
        var audit: [AuditEntry] = []
        var disabledEndpoints: [String: DisabledEndpoint] = [:]
        /// Job name → the holder of its lock.
        var locks: [String: String] = [:]
        /// `job` + slot → claim.
        var claims: [String: [Date: Claim]] = [:]
        var outbox = InMemoryOutbox.Queue()
        /// The open change feeds (``changeFeed(collections:)``), the number of the last batch
        /// announced, and which holder took each batch per job (``claimChanges(job:sequences:holder:)``).
        var feeds: [Int: OpenFeed] = [:]
        var nextFeed = 0
        var sequence: Int64 = 0
        var claimedChanges: [String: [Int64: String]] = [:]
        var changeFeedSupport = ChangeFeedSupport.available

        mutating func put(_ path: DocumentPath, _ bytes: [UInt8]) {
            writes += 1
            let version = DocumentVersion(size: bytes.count, mtimeSeconds: writes, mtimeNanoseconds: 0, hash: DocumentVersion.hash(bytes))
            documents[path.collection, default: [:]][path.id] = Stored(bytes: bytes, version: version)
        }

        /// Removes the document; whether there was one.
        @discardableResult
        mutating func remove(_ path: DocumentPath) -> Bool {
            documents[path.collection]?.removeValue(forKey: path.id) != nil
        }
    }

    let state = Mutex(State())

    /// A store holding `documents`: path (`users/u1`, `users/u1/badges/b1`) → JSON text.
    public init(documents: [String: String] = [:]) throws {
        for (path, text) in documents { try write(path, text) }
    }

    /// Writes `json` (any formatting, kept as it is) at `path` (`users/u1`), as a file dropped
    /// into a data directory would be: no version check, nothing else changes. Open change feeds
    /// are told, as of an app's write.
    public func write(_ path: String, _ json: String) throws {
        let p = try DocumentPath(parsing: path)
        state.withLock { s in
            s.put(p, Array(json.utf8))
            s.announce([p], writer: nil, chain: 0)
        }
    }

    /// Removes the document at `path`, if any (open change feeds are told when there was one).
    public func remove(_ path: String) throws {
        let p = try DocumentPath(parsing: path)
        state.withLock { s in
            if s.remove(p) { s.announce([p], writer: nil, chain: 0) }
        }
    }

    /// The document's text (as written, or as a commit wrote it), or nil when absent.
    public func text(_ path: String) -> String? {
        guard let p = try? DocumentPath(parsing: path) else { return nil }
        return state.withLock { $0.documents[p.collection]?[p.id] }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// The document parsed (for field checks); nil when absent or not a JSON object.
    public func object(_ path: String) -> JSONObject? {
        guard let t = text(path), case .object(let o)? = try? JSONParser.parse(Array(t.utf8)) else { return nil }
        return o
    }

    /// The ids of `collection`'s documents, sorted as every backend sorts them (by bytes).
    public func ids(_ collection: String) -> [String] {
        let ids = state.withLock { $0.documents[collection].map { Array($0.keys) } ?? [] }
        return ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension InMemoryStore: DocumentStore {
    public func documentIDs(in collection: String) throws(StoreError) -> [String] {
        ids(collection)
    }

    public func read(_ path: DocumentPath) -> DocumentRead {
        guard let stored = state.withLock({ $0.documents[path.collection]?[path.id] }) else { return .missing(path) }
        // The data directory's own parser: an invalid document reads the same from memory.
        return StoredDocument.parse(path, bytes: stored.bytes, version: stored.version)
    }

    public func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] {
        DocumentPath.paths(in: collection, ids: ids(collection)).map { read($0) }
    }

    /// A filter with a `.oneOf` condition, as an indexed store searches it: the documents that
    /// meet it and the ones that are not JSON objects, in id order, in one chunk; only those count
    /// as read (found by a plain scan: this store is for tests). Nil for any other filter, as on
    /// the data directory, so the caller reads the collection.
    public func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int? {
        guard filter.oneOf != nil else { return nil }
        let found = DocumentPath.paths(in: collection, ids: ids(collection)).map { read($0) }.filter { read in
            switch read {
            case .document(let d): filter.matches(d)
            case .invalid: true
            case .missing: false
            }
        }
        try body(found)
        return found.count
    }

    public func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String] {
        let (lo, hi) = (Ledger.hourStamp(from), Ledger.hourStamp(to))
        var out: [String: String] = [:]
        for (name, bytes) in ledger(namespace) {
            let hour = String(name.prefix(11))
            guard hour >= lo, hour <= hi, let entries = (try? JSONParser.parse(bytes))?.objectValue?["entries"]?.objectValue else { continue }
            for (k, v) in entries { if let s = v.stringValue { out[k] = s } }
        }
        return out
    }

    public func ledgerFiles(namespace: String, before date: Date) throws -> [String] {
        let cutoff = Ledger.hourStamp(date)
        return ledger(namespace).map(\.name).filter { String($0.prefix(11)) < cutoff }.map { Ledger.relativeDirectory(namespace) + "/" + $0 }
    }

    /// The ledger's entries of `namespace`: their names within its folder, sorted, and bodies.
    private func ledger(_ namespace: String) -> [(name: String, bytes: [UInt8])] {
        let prefix = Ledger.relativeDirectory(namespace) + "/"
        return state.withLock { s in s.ledger.filter { $0.key.hasPrefix(prefix) } }
            .map { (String($0.key.dropFirst(prefix.count)), $0.value) }
            .sorted { $0.name < $1.name }
    }
}
