import ArgumentParser

/// The `hearth` command: runs jobs once, as a plan, or on a schedule.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted cloud-functions host: scheduled jobs over a JSON data directory.",
        discussion: """
            Exit codes: 0 success; 1 the job failed; 2 changes (with --detailed-exitcode); 64 usage \
            error; 65 invalid input documents; 74 I/O error (e.g. disk full); 75 temporary failure \
            (lock busy, conflicts); 77 no permission (documents whose owner Hearth cannot keep); \
            78 configuration error.
            """,
        version: HearthVersion.description,
        subcommands: [List.self, Run.self, PlanCommand.self, Call.self, Daemon.self, Pause.self, Resume.self, Next.self, Backfill.self, History.self, Check.self, Audit.self, Export.self, Seed.self, Recover.self, Outbox.self, Migrate.self, DataCommand.self]
    )
}
