import ArgumentParser
import HearthKit
import HearthHost
import HearthDataDirectory
import HearthStore
import Logging

extension HearthBench {
    /// `hearth-bench run-twin --config C --now T [--dry-run]`: runs ``ExpireGigsTwin`` through
    /// the same runner as `hearth run`, over the config's data directory (for
    /// `scripts/bench.py functions`).
    struct RunTwin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run-twin", abstract: "Run the compiled-in twin of functions/expire_gigs.py (benchmark only).")

        @Option(help: "Configuration file.")
        var config: String

        @Option(help: "Logical and start time, ISO-8601.")
        var now: String

        @Flag(help: "Plan only.")
        var dryRun = false

        func run() async throws {
            do {
                let registry = JobRegistry([ExpireGigsTwin.self])
                let loaded = try ConfigLoader(jobs: registry.descriptors).load(path: config)
                guard let at = Timestamp.parseISO8601(now) else { throw ValidationError("--now: expected an ISO-8601 date-time") }
                let data = try DataDirectory(root: loaded.dataDir)
                let runner = Runner(config: loaded, data: data, registry: registry, logger: Logger(label: "hearth-bench"))
                let outcome = try await runner.run(ExpireGigsTwin.descriptor.name, options: RunOptions(trigger: .cli, logicalTime: at, startTime: at, dryRun: dryRun))
                if let error = outcome.error { throw error }
                let r = outcome.record
                emit("{\"created\": \(r.created), \"updated\": \(r.updated), \"messages\": \(r.messagesQueued)}\n")
            } catch {
                throw HearthBench.fail(error)
            }
        }
    }
}
