import ArgumentParser
import Jobs
import HearthKit
import HearthSchedule
import HearthHost

extension Hearth {
    /// `hearth check`: validates the configuration, every schedule, and every document the
    /// jobs read (by running each job as a dry run that records nothing).
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate the configuration and every document the jobs read (exit 65 if a document is invalid, 77 if Hearth cannot keep the owner of documents the jobs write).")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            try await global.withStore(listing: listing) { logger, config, data in
                for (name, jc) in config.jobs.sorted(by: { $0.key < $1.key }) {
                    do { _ = try Schedule(parsing: jc.schedule, allowSeconds: config.allowSecondIntervals) } catch {
                        throw ConfigError(file: config.file ?? "config", "[jobs.\(name)] schedule: \(error)")
                    }
                }
                let report = try await DataCheck(config: config, data: data, registry: JobCatalog.registry, logger: logger).run()
                switch listing.format {
                case .json: emit(JSONWriter.pretty(report.json) + "\n")
                default: emit(report.text)
                }
                if !report.issues.isEmpty { throw ExitCode(ExitStatus.dataError) }
                if !report.unkeepable.isEmpty { throw ExitCode(ExitStatus.noPermission) }
            }
        }
    }
}
