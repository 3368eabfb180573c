import ArgumentParser
import HearthKit
import HearthStore
import HearthSchedule
import HearthOutbound
import HearthHost
import HearthHTTP

extension Hearth {
    /// `hearth outbox dead`: the dead letters.
    struct OutboxDead: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dead",
            abstract: "List dead letters (gave up after maxAttempts or maxAge, or rejected permanently).")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                try format.requireListing()
                let config = try global.loadConfig(logger: logger)
                let data = try global.openData(config)
                let entries: [OutboxListing.Entry] = try OutboxStore.messages(in: .dead, data: data).map { (.dead, $0) }
                switch format {
                case .json: emit(JSONWriter.pretty(OutboxListing.json(entries)) + "\n")
                default: emit(OutboxListing.text(entries, empty: "No dead letters."))
                }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
