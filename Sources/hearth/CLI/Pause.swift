import ArgumentParser
import Foundation
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth pause JOB`: the daemon records the job's slots as `skipped-paused` until
    /// `hearth resume` (docs/operations/monitoring.md#pause-and-resume).
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause a job: the daemon skips its slots (recorded skipped-paused) until `hearth resume`.",
            discussion: """
                Kept in the data backend (.hearth/paused/JOB.json, or the job_pauses table on PostgreSQL); a running daemon picks it up within \
                a second. A run in progress finishes. `hearth run JOB` still works (with a warning).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job to pause (see `hearth list`).")
        var job: String

        @Option(help: "Why it is paused (shown by `hearth list` and the status page).")
        var note: String?

        func run() async throws {
            try await global.withStore { logger, config, data in
                guard config.jobs[job] != nil else {
                    throw UnknownJobError(name: job, known: global.registry(config, logger: logger).names)
                }
                let already = try data.pauses()[job] != nil
                do { try data.setPause(JobPause(job: job, note: note, pausedAt: Date(), pausedBy: "cli")) } catch {
                    CLIAudit.record(data, .pause, job: job, note: note, outcome: CLIAudit.failed(error))
                    throw error
                }
                CLIAudit.record(data, .pause, job: job, note: note)
                emit(already ? "\(job): still paused (note updated).\n" : "\(job): paused. `hearth resume \(job)` resumes it.\n")
            }
        }
    }
}
