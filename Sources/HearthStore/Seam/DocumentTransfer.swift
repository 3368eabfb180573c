/// Moves documents between a backend and a data directory (docs/storage/postgres.md#moving-data).
/// Blocking: callers on the cooperative pool run it through ``BlockingIO``.
package protocol DocumentTransfer: Sendable {
    /// Copies every document of the data directory `directory` into the store in one
    /// transaction; a store that holds documents is refused unless `replace`. Returns how many.
    func importDirectory(_ directory: String, replace: Bool, progress: ((Int) -> Void)?) throws -> Int

    /// Writes every document into `directory` (new or empty) as a data directory. Returns how many.
    func exportDocuments(to directory: String, progress: ((Int) -> Void)?) throws -> Int
}
