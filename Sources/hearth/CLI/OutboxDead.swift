import ArgumentParser
import HearthKit
import HearthStore
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

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            try await global.withStore(listing: listing) { _, _, store in
                let queue = store.outbox
                let entries: [OutboxListing.Entry] = try queue.messages(in: .dead).map { (.dead, $0) }
                switch listing.format {
                case .json: emit(JSONWriter.pretty(OutboxListing.json(entries)) + "\n")
                default: emit(OutboxListing.text(entries, empty: "No dead letters."))
                }
            }
        }
    }
}
