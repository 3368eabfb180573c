import ArgumentParser
import HearthKit
import HearthHost
import HearthStore

extension Hearth {
    /// `hearth data export DIR` (docs/storage/postgres.md#moving-data).
    struct DataExport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every document of the PostgreSQL store into DIR (new or empty) as a data directory.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The directory to write (created; must be empty).")
        var directory: String

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                _ = try config.requirePostgresURL(for: "data export")
                let store = try config.openStore()
                guard let transfer = store.transfer else {
                    throw ConfigError(file: config.file ?? "hearth.toml", "`hearth data export` needs a store that can copy documents to or from a data directory; \(store.location) cannot")
                }
                let dir = directory
                var progress: (@Sendable (Int) -> Void)?
                if stderrIsTTY { progress = { n in emitError("\r\u{1B}[Kexported \(n) documents") } }
                let report = progress
                let count = try await BlockingIO.run { () throws(any Error) -> Int in try transfer.exportDocuments(to: dir, progress: report) }
                if progress != nil { emitError("\r\u{1B}[K") }
                emit("exported \(count) documents to \(dir)\n")
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
