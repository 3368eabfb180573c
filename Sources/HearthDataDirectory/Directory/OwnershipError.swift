/// A run would rewrite documents whose owner or group Hearth cannot keep (it is not root and
/// they belong to someone else); nothing was committed (docs/data-directory.md#ownership-and-modes).
/// The CLI exits 77 (`EX_NOPERM`).
package struct OwnershipError: Error, Sendable, CustomStringConvertible {
    /// Paths relative to the data directory, with their owners (`root:root (uid 0, gid 0)`).
    package var files: [(file: String, owner: String)]
    /// `nobody (uid 65534, gid 65534)`.
    package var runningAs: String
    /// The user name Hearth runs as, for the chown advice.
    package var runningUser: String
    /// The owner to suggest for `User=`: the first file's owner, nil when that is root.
    package var suggestedUser: String?

    package init(files: [(file: String, owner: String)], runningAs: String, runningUser: String, suggestedUser: String?) {
        self.files = files
        self.runningAs = runningAs
        self.runningUser = runningUser
        self.suggestedUser = suggestedUser
    }

    package var description: String {
        let shown = files.prefix(5).map { "\($0.file) is owned by \($0.owner)" }.joined(separator: "; ")
        let more = files.count > 5 ? "; and \(files.count - 5) more (`hearth check` lists them)" : ""
        var text = "cannot keep the owner of \(files.count) document(s) this run would rewrite: \(shown)\(more). "
            + "Hearth runs as \(runningAs), which may not give a file another owner, so nothing was committed. "
        if let user = suggestedUser {
            text += "Run Hearth as the user that owns the data (`User=\(user)` in the systemd unit, `hearth export systemd --user \(user)`), "
                + "or chown the documents to \(runningUser)."
        } else {
            text += "Chown the documents to \(runningUser) (the user that owns the data), or run Hearth as their owner."
        }
        return text
    }
}
