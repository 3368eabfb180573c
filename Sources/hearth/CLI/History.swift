import ArgumentParser
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth history`: run records, newest first.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "history", abstract: "Show run records, newest first.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Only this job.")
        var job: String?

        @Option(help: "At most this many records.")
        var limit: Int = 20

        @Option(help: "Only runs with this status (succeeded, succeeded-with-warnings, failed, cancelled, skipped-overlap, skipped-catch-up, skipped-paused, conflict).")
        var status: String?

        @OptionGroup var listing: ListingFormat

        /// The error, the warnings' count, or for a call who called and the answer.
        static func note(_ r: RunRecord) -> String {
            if let error = r.error { return error }
            let call = r.trigger == .call ? "call from \(r.callerUID ?? "(no token)") → \(r.answer ?? "—")" : ""
            let warnings = r.warnings.isEmpty ? "" : "\(r.warnings.count) warning(s)"
            return [call, warnings].filter { !$0.isEmpty }.joined(separator: "; ")
        }

        func run() async throws {
            try await global.withStore(listing: listing) { _, _, store in
                var wanted: RunRecord.Status?
                if let status {
                    guard let s = RunRecord.Status(rawValue: status) else {
                        throw UsageError("--status \(status): accepted: \(RunRecord.Status.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    wanted = s
                }
                let records = try store.runRecords(job: job, status: wanted, limit: limit)
                switch listing.format {
                case .json: emit(JSONWriter.pretty(.array(records.map { .object($0.json) })) + "\n")
                default:
                    let rows = records.map { r in
                        [r.runID, r.job, r.trigger.rawValue, Timestamp.format(r.logicalTime), r.status.rawValue + (r.dryRun ? " (dry run)" : ""),
                         "+\(r.created) ~\(r.updated) -\(r.deleted) ✉\(r.messagesQueued)", Self.note(r)]
                    }
                    emit(Table.render(header: ["RUN", "JOB", "TRIGGER", "LOGICAL TIME", "STATUS", "CHANGES", "NOTE"], rows: rows))
                }
            }
        }
    }
}
