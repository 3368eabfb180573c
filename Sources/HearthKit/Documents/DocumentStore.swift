public import Foundation

/// Read access to documents. Jobs never write directly: they build a ``Changeset`` that the
/// runner commits.
public protocol DocumentStore: Sendable {
    /// Ids of the documents in `collection` (`users`, or `users/u1/badges`), sorted.
    func documentIDs(in collection: String) throws(StoreError) -> [String]
    /// One document; `.missing` when there is no file.
    func read(_ path: DocumentPath) -> DocumentRead
    /// What ``read(_:)`` gives for each of `paths`, in order. A store may read many documents
    /// faster than one by one (the data directory opens the files of one collection relative
    /// to its directory); the default reads them one by one.
    func read(_ paths: ArraySlice<DocumentPath>) -> [DocumentRead]
    /// Every document of a collection, in id order.
    func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead]
    /// The ledger entries of `namespace` dated within `[from, to]` (by UTC hour), as committed
    /// by earlier runs of any job.
    func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String]
    /// The ledger's own names for the entries of `namespace` from hours before `date`'s, which
    /// a run may prune in its commit.
    func ledgerFiles(namespace: String, before date: Date) throws -> [String]
    /// The memo `name` of `job`'s scans of `collection` (see ``RejectMemo``); nil when the store
    /// keeps none (the default: every scan reads every document).
    func rejectMemo(job: String, collection: String, name: String) -> (any RejectMemo)?
    /// Reads the documents of `collection` that meet `filter`, and the ones that are not JSON
    /// objects, in id order, handing them to `body` a chunk at a time; returns how many it read.
    /// Nil, without calling `body`, when the store cannot search (the default): the caller then
    /// reads the whole collection.
    func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int?
    /// Reads every document of `collection` in one pass, in id order, handing `body` a chunk at
    /// a time as a function that decodes it, to be called on any thread: the caller decodes
    /// chunks on all cores while the store reads the next. Returns how many documents it read.
    /// Nil, without calling `body`, when the store reads no faster this way than by listing the
    /// ids and reading them (the default).
    func stream(_ collection: String, _ body: (_ chunk: @escaping @Sendable () -> [DocumentRead]) throws -> Void) throws -> Int?
}

extension DocumentStore {
    public func read(_ paths: ArraySlice<DocumentPath>) -> [DocumentRead] { paths.map { read($0) } }

    /// A store without a ledger has no entries.
    public func ledgerEntries(namespace: String, from: Date, to: Date) throws -> [String: String] { [:] }
    public func ledgerFiles(namespace: String, before date: Date) throws -> [String] { [] }
    public func rejectMemo(job: String, collection: String, name: String) -> (any RejectMemo)? { nil }
    public func search(_ collection: String, matching filter: ScanFilter, _ body: ([DocumentRead]) throws -> Void) throws -> Int? { nil }
    public func stream(_ collection: String, _ body: (_ chunk: @escaping @Sendable () -> [DocumentRead]) throws -> Void) throws -> Int? { nil }
}

/// The outcome of reading one document.
public enum DocumentRead: Sendable {
    case document(Document)
    case invalid(DocumentPath, DocumentIssue)
    case missing(DocumentPath)
}

/// A failure of the data directory itself (not of one document).
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
