import ArgumentParser
import HearthKit
import HearthStore
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

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            try await global.withStore(listing: listing) { _, _, store in
                let queue = store.outbox
                var entries: [OutboxListing.Entry] = []
                for folder in [OutboxStore.Folder.pending, .dead] {
                    entries += try queue.messages(in: folder).map { (folder, $0) }
                }
                switch listing.format {
                case .json: emit(JSONWriter.pretty(OutboxListing.json(entries)) + "\n")
                default: emit(OutboxListing.text(entries, empty: "The outbox is empty."))
                }
            }
        }
    }
}
