/// A run would rewrite documents whose owner or group Hearth cannot keep (it is not root and
/// they belong to someone else); nothing was committed (docs/data-directory.md#ownership-and-modes).
/// The CLI exits 77 (`EX_NOPERM`).
package struct OwnershipError: Error, Sendable, CustomStringConvertible {
    /// Paths relative to the data directory, with their owners.
    package var files: [(file: String, owner: String)]
    /// `hearth (uid 1000, gid 1000)`.
    package var runningAs: String
    /// The user name to suggest for `User=` (the first file's owner).
    package var suggestedUser: String

    package init(files: [(file: String, owner: String)], runningAs: String, suggestedUser: String) {
        self.files = files
        self.runningAs = runningAs
        self.suggestedUser = suggestedUser
    }

    package var description: String {
        let shown = files.prefix(5).map { "\($0.file) (owned by \($0.owner))" }.joined(separator: ", ")
        let more = files.count > 5 ? " and \(files.count - 5) more" : ""
        return "cannot keep the owner of \(files.count) document(s) this run would rewrite: \(shown)\(more); "
            + "Hearth runs as \(runningAs) and may not give files another owner, so nothing was committed. "
            + "Run Hearth as the user that owns the data (`User=\(suggestedUser)` in the systemd unit, "
            + "`hearth export systemd --user \(suggestedUser)`, or `runuser -u \(suggestedUser) -- hearth …`), "
            + "or give the documents to the user Hearth runs as (chown)."
    }
}
