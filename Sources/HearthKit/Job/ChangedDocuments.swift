/// What a run started by writes is told about them (docs/triggers.md#what-a-triggered-run-sees):
/// the documents of the job's trigger collections written since the job last took its
/// changes, by collection. ``JobContext/changes`` is nil when a run must read everything: a
/// scheduled, CLI or catch-up run, and a triggered run whose writes are not all known (the
/// daemon's first run after it starts, a watch that overflowed, a notification lost with a
/// dropped connection).
///
/// A path here says only that the document was written: it may have been deleted since, or be
/// half-written (read it; a missing or invalid document is handled the usual way).
public struct ChangedDocuments: Sendable, Equatable {
    /// Per top-level collection, the written documents, sorted by path, each once.
    public let byCollection: [String: [DocumentPath]]

    public init(_ paths: some Sequence<DocumentPath>) {
        var grouped: [String: Set<DocumentPath>] = [:]
        for p in paths { grouped[p.components[0], default: []].insert(p) }
        byCollection = grouped.mapValues { $0.sorted() }
    }

    /// The written documents of `collection` (top-level, e.g. `transactions`); empty when none
    /// were.
    public func paths(in collection: String) -> [DocumentPath] { byCollection[collection] ?? [] }

    /// How many documents were written, in all collections.
    public var count: Int { byCollection.values.reduce(0) { $0 + $1.count } }
}
