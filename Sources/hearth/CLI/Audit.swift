import ArgumentParser
import HearthKit
import HearthStore

extension Hearth {
    /// `hearth audit`: the audit log, newest first (docs/operations/monitoring.md#the-audit-log).
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Show the audit log, newest first: pause, resume, run now, backfill, dead-letter retry, data import.",
            discussion: """
                Each entry: when, the action, the job, who (the Unix user and SUDO_USER from the CLI; the \
                token's name and the peer address over HTTP), the note and the outcome. Kept in \
                .hearth/audit.jsonl (mode 0640) or the audit_log table on PostgreSQL.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only this job's entries.")
        var job: String?

        @Option(help: "At most this many entries.")
        var limit: Int = 50

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            try await global.withStore(listing: listing) { _, _, store in
                guard limit >= 1 else { throw UsageError("--limit must be 1 or more") }
                let entries = try store.auditEntries(job: job, limit: limit)
                switch listing.format {
                case .json: emit(JSONWriter.pretty(.array(entries.map { .object($0.json) })) + "\n")
                default:
                    if entries.isEmpty {
                        emit(job.map { "No actions recorded for \($0).\n" } ?? "No actions recorded.\n")
                        return
                    }
                    let rows = entries.map { e in
                        [Timestamp.format(e.time), e.action.rawValue, e.job ?? "—", e.via.rawValue + ": " + e.actor,
                         [e.target, e.note].compactMap { $0 }.joined(separator: " · "), e.outcome]
                    }
                    emit(Table.render(header: ["TIME", "ACTION", "JOB", "WHO", "DETAILS", "OUTCOME"], rows: rows))
                }
            }
        }
    }
}
