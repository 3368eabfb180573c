import ArgumentParser
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth data import DIR [--replace]` (docs/storage/postgres.md#moving-data).
    struct DataImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Copy every document of the data directory DIR into the PostgreSQL store, in one transaction.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The data directory to read.")
        var directory: String

        @Flag(help: "Delete the documents the store already holds first (otherwise a non-empty store is refused).")
        var replace = false

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                _ = try config.requirePostgresURL(for: "data import")
                let store = try config.openStore()
                guard let transfer = store.transfer else {
                    throw ConfigError(file: config.file ?? "hearth.toml", "`hearth data import` needs a store that can copy documents to or from a data directory; \(store.location) cannot")
                }
                let (dir, replace) = (directory, replace)
                var progress: (@Sendable (Int) -> Void)?
                if stderrIsTTY { progress = { n in emitError("\r\u{1B}[Kimported \(n) documents") } }
                let report = progress
                let count: Int
                do {
                    count = try await BlockingIO.run { () throws(any Error) -> Int in
                        try transfer.importDirectory(dir, replace: replace, progress: report)
                    }
                } catch {
                    CLIAudit.record(store, .dataImport, job: nil, note: replace ? "replace" : nil, outcome: CLIAudit.failed(error), target: dir)
                    throw error
                }
                CLIAudit.record(store, .dataImport, job: nil, note: (replace ? "replace; " : "") + "\(count) documents", target: dir)
                if progress != nil { emitError("\r\u{1B}[K") }
                emit("imported \(count) documents from \(dir)\n")
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
