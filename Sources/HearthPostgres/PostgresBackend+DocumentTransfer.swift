import HearthStore

/// `hearth data import` / `export` through the seam (``PostgresTransfer``).
extension PostgresBackend: DocumentTransfer {
    package func importDirectory(_ directory: String, replace: Bool, progress: ((Int) -> Void)?) throws -> Int {
        try PostgresTransfer.importDirectory(directory, into: self, replace: replace, progress: progress)
    }

    package func exportDocuments(to directory: String, progress: ((Int) -> Void)?) throws -> Int {
        try PostgresTransfer.export(self, to: directory, progress: progress)
    }
}
