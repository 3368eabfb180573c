import ArgumentParser
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth resume JOB`: undoes `hearth pause` (docs/operations/monitoring.md#pause-and-resume).
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Resume a paused job: the daemon runs it again from its next slot.",
            discussion: "Slots skipped while it was paused are not caught up. A running daemon picks it up within a second.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job to resume.")
        var job: String

        func run() async throws {
            try await global.withStore { logger, config, data in
                guard config.jobs[job] != nil else {
                    throw UnknownJobError(name: job, known: global.registry(config, logger: logger).names)
                }
                guard try data.pauses()[job] != nil else {
                    CLIAudit.record(data, .resume, job: job, note: "was not paused")
                    emit("\(job): not paused.\n")
                    return
                }
                do { try data.clearPause(job: job) } catch {
                    CLIAudit.record(data, .resume, job: job, outcome: CLIAudit.failed(error))
                    throw error
                }
                CLIAudit.record(data, .resume, job: job)
                emit("\(job): resumed.\n")
            }
        }
    }
}
