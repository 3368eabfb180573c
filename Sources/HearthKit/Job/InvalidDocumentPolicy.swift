/// `onInvalidDocument`: what a run does with invalid input (docs/data-directory.md#invalid-documents).
public enum InvalidDocumentPolicy: String, Sendable, CaseIterable {
    /// Leave the document out, warn, finish `succeeded-with-warnings`.
    case skip
    /// Fail the run (exit 65) and commit nothing.
    case fail
}

/// Raised under `onInvalidDocument = "fail"`; carries every issue found so far.
public struct InvalidInputError: Error, Sendable, CustomStringConvertible {
    public var issues: [DocumentIssue]
    public var description: String {
        "invalid input (onInvalidDocument = \"fail\"): " + issues.map(\.description).joined(separator: "; ")
    }
}
