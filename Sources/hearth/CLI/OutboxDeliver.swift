import ArgumentParser
import HearthKit
import HearthOutbound
import HearthHTTP
import HearthHost

extension Hearth {
    /// `hearth outbox deliver`: one delivery pass.
    struct OutboxDeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deliver",
            abstract: "Deliver every pending message that is due now, and report the counts.",
            discussion: "Safe to run while the daemon runs: a message is never sent by two processes at once.")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            try await global.withStore(listing: listing) { logger, config, store in
                // Delivering is all this command does: its HTTP client starts at once, so a libcurl
                // that cannot be loaded is reported before any message is claimed.
                let client = try CurlHTTPClient(options: HTTPClientOptions(config.http))
                defer { client.shutdown() }
                let report = try await OutboxDelivery(config: config, store: store, http: client, logger: logger).deliverDue()
                switch listing.format {
                case .json: emit(JSONWriter.pretty(.object(report.json)) + "\n")
                default:
                    emit(report.summaryLine + "\n")
                    if let next = report.nextDue { emit("Next attempt due at \(Timestamp.format(next)).\n") }
                }
                if !report.errors.isEmpty {
                    for e in report.errors { emitError("hearth: error: \(e)\n") }
                    throw ExitCode(ExitStatus.jobFailed)
                }
            }
        }
    }
}
