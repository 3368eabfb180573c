import ArgumentParser

extension Hearth {
    /// `hearth plan JOB` = `hearth run JOB --dry-run`.
    struct PlanCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Show what a job would write and send, without committing anything (= run --dry-run).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var arguments: RunArguments

        func run() async throws {
            let code = await arguments.execute(global: global, dryRun: true)
            if code != .success { throw code }
        }
    }
}
