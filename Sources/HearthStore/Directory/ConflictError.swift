public import HearthKit

/// A run whose documents kept changing under it (exit 75).
public struct ConflictError: Error, Sendable, CustomStringConvertible {
    public var paths: [DocumentPath]
    public var attempts: Int

    public init(paths: [DocumentPath], attempts: Int) {
        self.paths = paths
        self.attempts = attempts
    }

    public var description: String {
        let shown = paths.prefix(5).map(\.relativeFile).joined(separator: ", ")
        return "conflict: another process changed \(shown)\(paths.count > 5 ? " and \(paths.count - 5) more" : "") while the job ran, \(attempts) times in a row; nothing was committed. Run it again when the other writer is done."
    }
}
