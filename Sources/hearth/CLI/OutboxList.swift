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
                for folder in [OutboxFolder.pending, .dead] {
                    entries += try queue.messages(in: folder).map { (folder, $0) }
                }
                // Dropped messages (nothing to deliver them to) are not in the queue any more,
                // but an empty outbox that silently lost messages would mislead: count them and
                // say where they are.
                let dropped = try queue.messages(in: .dropped)
                switch listing.format {
                case .json: emit(JSONWriter.pretty(OutboxListing.json(entries + dropped.map { (.dropped, $0) })) + "\n")
                default:
                    let summary = OutboxListing.droppedSummary(dropped.count, where: OutboxListing.droppedLocation(queue))
                    if entries.isEmpty, !dropped.isEmpty {
                        emit("Nothing pending, no dead letters. " + summary)
                    } else {
                        emit(OutboxListing.text(entries, empty: "The outbox is empty."))
                        if !dropped.isEmpty { emit(summary) }
                    }
                }
            }
        }
    }
}
