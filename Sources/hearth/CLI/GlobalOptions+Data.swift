import ArgumentParser
import HearthHost
import HearthStore
import Logging

extension GlobalOptions {
    /// How the commands over the configured backend (directory or PostgreSQL) start and end:
    /// logging, `--format` checked (when the command prints a listing), the configuration (with
    /// `--data`), the store, then `body`. An error is printed and mapped to its exit status
    /// (`ExitStatus.fail`); an `ExitCode` the body throws passes through as it is.
    func withStore(listing: ListingFormat? = nil, _ body: (Logger, HearthConfig, any StorageBackend) async throws -> Void) async throws {
        do {
            let logger = try bootstrap()
            let config = try loadConfig(logger: logger)
            try await body(logger, config, try openStore(config))
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw ExitStatus.fail(error)
        }
    }
}
