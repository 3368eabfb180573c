/// What every document a scan's transform keeps holds in its own top-level fields
/// (docs/storage/reject-memos.md#filters): all the conditions at once. A store that can search
/// (PostgreSQL) reads only the documents that meet it, and the rows that are not JSON objects
/// (so that they are reported as invalid, as a full scan reports them); every store hands the
/// transform only the documents that meet it, so a job's output is the same on every store.
///
/// A `.oneOf` condition picks a few documents of a large collection by a field (the messages of
/// some conversations): PostgreSQL finds them through an index on the field where it has one
/// (docs/storage/postgres.md#schema), a watched data directory through its in-memory field index
/// (docs/storage/field-indexes.md); read with ``JobContext/decode(_:filter:_:)``.
public struct ScanFilter: Sendable, Hashable {
    public enum Condition: Sendable, Hashable {
        /// The field holds exactly this string (not a number or anything else spelled the same).
        case equals(field: String, value: String)
        /// The field is absent or `null`.
        case absentOrNull(field: String)
        /// The field holds a string that is one of `values` (not a number spelled the same).
        /// With no values, no document meets it.
        case oneOf(field: String, values: Set<String>)
    }

    public var conditions: [Condition]

    public init(_ conditions: [Condition]) { self.conditions = conditions }

    public func matches(_ document: Document) -> Bool {
        conditions.allSatisfy { condition in
            switch condition {
            case .equals(let field, let value): document[field]?.stringValue == value
            case .absentOrNull(let field): document[field]?.isNull ?? true
            case .oneOf(let field, let values): document[field]?.stringValue.map(values.contains) ?? false
            }
        }
    }

    /// The first `.oneOf` condition's field and values: what an index can look up.
    public var oneOf: (field: String, values: Set<String>)? {
        for case .oneOf(let field, let values) in conditions { return (field, values) }
        return nil
    }
}
