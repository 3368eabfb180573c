import ArgumentParser
import HearthKit

extension Hearth {
    /// `hearth run JOB`: runs a job once now (or at `--now`), committing its changes.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run a job once and commit its changes (or show them with --dry-run).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var arguments: RunArguments

        @Flag(help: "Show the plan; commit nothing, send nothing.")
        var dryRun = false

        func run() async throws {
            let code = await arguments.execute(global: global, dryRun: dryRun)
            if code != .success { throw code }
        }
    }
}
