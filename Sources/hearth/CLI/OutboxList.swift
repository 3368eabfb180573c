import ArgumentParser
import HearthKit
import HearthStore
import HearthSchedule
import HearthOutbound
import HearthHost
import HearthHTTP

extension Hearth {
    /// `hearth outbox list`: pending messages and dead letters.
    struct OutboxList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List pending messages and dead letters: attempts, next attempt, last error (tokens redacted).")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                try format.requireListing()
                let config = try global.loadConfig(logger: logger)
                let data = try global.openData(config)
                var entries: [OutboxListing.Entry] = []
                for folder in [OutboxStore.Folder.pending, .dead] {
                    entries += try OutboxStore.messages(in: folder, data: data).map { (folder, $0) }
                }
                switch format {
                case .json: emit(JSONWriter.pretty(OutboxListing.json(entries)) + "\n")
                default: emit(OutboxListing.text(entries, empty: "The outbox is empty."))
                }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
