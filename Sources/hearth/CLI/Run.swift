import ArgumentParser

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

        @Flag(inversion: .prefixedNo, help: "Deliver the outbox right after the commit; with --no-deliver the run's messages stay queued for the daemon or `hearth outbox deliver`.")
        var deliver = true

        func run() async throws {
            let code = await arguments.execute(global: global, dryRun: dryRun, deliver: deliver)
            if code != .success { throw code }
        }
    }
}
