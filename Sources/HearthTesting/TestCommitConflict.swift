public import HearthKit

/// ``TestJobContext/commit()`` found documents changed since the run read them.
public struct TestCommitConflict: Error, Sendable, CustomStringConvertible {
    public var paths: [DocumentPath]
    public var description: String { "conflict: changed since the run read them: \(paths.map(\.description).joined(separator: ", "))" }
}
