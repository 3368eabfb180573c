import ArgumentParser

extension Hearth {
    /// `hearth outbox`: the transactional outbox (docs/outbox-and-webhooks.md#delivery-retries-dead-letters).
    struct Outbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox",
            abstract: "Inspect and deliver the outbox (pushes and webhook events queued by jobs).",
            discussion: """
                Jobs queue messages in their commit; they are delivered right after a CLI run, \
                continuously by the daemon, or by `hearth outbox deliver`. Failed deliveries are \
                retried with backoff up to [outbox] maxAttempts / maxAge, then become dead letters.
                """,
            subcommands: [OutboxList.self, OutboxDeliver.self, OutboxDead.self, OutboxRetry.self],
            defaultSubcommand: OutboxList.self)
    }
}
