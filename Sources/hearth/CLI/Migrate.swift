import ArgumentParser
import HearthKit
import HearthHost
import HearthPostgres

extension Hearth {
    /// `hearth migrate`: creates or upgrades the PostgreSQL schema (docs/storage/postgres.md#schema).
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Create or upgrade the PostgreSQL schema ([store] kind = \"postgres\"); safe to run again.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                let url = try config.requirePostgresURL(for: "migrate")
                let applied = try await BlockingIO.run { () throws(any Error) in
                    try PostgresSchema.migrate(try PostgresConnection(url: url))
                }
                if applied.isEmpty {
                    emit("schema is up to date (version \(PostgresSchema.latest))\n")
                } else {
                    emit("applied migration(s) \(applied.map(String.init).joined(separator: ", ")); schema version \(PostgresSchema.latest)\n")
                }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
