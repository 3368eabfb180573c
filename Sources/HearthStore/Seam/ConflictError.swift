package import HearthKit

/// A run whose documents kept changing under it (exit 75).
package struct ConflictError: Error, Sendable, CustomStringConvertible {
    package var paths: [DocumentPath]
    package var attempts: Int

    package init(paths: [DocumentPath], attempts: Int) {
        self.paths = paths
        self.attempts = attempts
    }

    package var description: String {
        let shown = paths.prefix(5).map(\.relativeFile).joined(separator: ", ")
        return "conflict: another process changed \(shown)\(paths.count > 5 ? " and \(paths.count - 5) more" : "") while the job ran, \(attempts) times in a row; nothing was committed. Run it again when the other writer is done."
    }
}
