/// What every document a scan's transform keeps holds in its own top-level fields
/// (docs/storage/reject-memos.md#filters): all the conditions at once. A store that can search
/// (PostgreSQL) reads only the documents that meet it, and the rows that are not JSON objects
/// (so that they are reported as invalid, as a full scan reports them); every store hands the
/// transform only the documents that meet it, so a job's output is the same on every store.
public struct ScanFilter: Sendable, Hashable {
    public enum Condition: Sendable, Hashable {
        /// The field holds exactly this string (not a number or anything else spelled the same).
        case equals(field: String, value: String)
        /// The field is absent or `null`.
        case absentOrNull(field: String)
    }

    public var conditions: [Condition]

    public init(_ conditions: [Condition]) { self.conditions = conditions }

    public func matches(_ document: Document) -> Bool {
        conditions.allSatisfy { condition in
            switch condition {
            case .equals(let field, let value): document[field]?.stringValue == value
            case .absentOrNull(let field): document[field]?.isNull ?? true
            }
        }
    }
}
