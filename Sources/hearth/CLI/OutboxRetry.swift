import ArgumentParser
import Foundation
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth outbox retry ID`: a dead letter back to pending.
    struct OutboxRetry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Move a dead letter back to pending, due now, with its attempts reset.",
            discussion: "Targets it already reached are not sent again. Run `hearth outbox deliver` (or let the daemon) to send it.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The message id (see `hearth outbox dead`).")
        var id: String?

        @Flag(help: "Retry every dead letter.")
        var all = false

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                guard (id != nil) != all else { throw UsageError("give either a message ID or --all") }
                let config = try global.loadConfig(logger: logger)
                let store = try global.openStore(config)
                let queue = store.outbox
                let ids = all ? try queue.messages(in: .dead).map(\.id) : [id!]
                let now = Date()
                for id in ids {
                    if try queue.retry(id: id, now: now) {
                        CLIAudit.record(store, .outboxRetry, job: nil, target: id)
                        emit("\(id): moved back to pending; due now.\n")
                    } else if try queue.messages(in: .pending).contains(where: { $0.id == id }) {
                        throw UsageError("\(id) is not a dead letter: it is still pending (see `hearth outbox list`)")
                    } else {
                        throw UsageError("no dead letter has the id \(JSONWriter.quoted(id)) (see `hearth outbox dead`)")
                    }
                }
                if ids.isEmpty { emit("No dead letters.\n") }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
